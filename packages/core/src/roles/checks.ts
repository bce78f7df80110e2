import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { checkPermissions } from '../policy/policies.js'
import { checkName } from '../service/name.js'
import { MAX_KEY_ROLES, MAX_ROLE_NAME_LENGTH, type RoleChange } from './model.js'

/** @internal A role's name: 1 to 100 characters, as a key's name (no control character, nothing shaped like a key). */
export function checkRoleName(value: unknown, loc: readonly string[]): string {
  const name = checkName(value, loc, MAX_ROLE_NAME_LENGTH)
  if (name === null) throw new KeywardError(ErrorType.missing, 'Field required.', loc)
  return name
}

/** @internal A role's permissions: declared ones or wildcards, a list (possibly empty). */
export function checkRolePermissions(
  value: unknown,
  declared: ReadonlySet<string>,
  loc: readonly string[],
): readonly string[] {
  const permissions = checkPermissions(value, declared, loc)
  if (permissions === null) throw new KeywardError(ErrorType.missing, 'Field required.', loc)
  return permissions
}

/** @internal A role's creation as given, checked (422 at `["body", field]`). */
export function checkNewRole(
  value: { readonly name?: unknown; readonly permissions?: unknown },
  declared: ReadonlySet<string>,
): { readonly name: string; readonly permissions: readonly string[] } {
  return {
    name: checkRoleName(value.name, ['body', 'name']),
    permissions: checkRolePermissions(value.permissions, declared, ['body', 'permissions']),
  }
}

/** @internal A role's change as given, checked; absent fields stay. */
export function checkRoleChange(
  value: { readonly name?: unknown; readonly permissions?: unknown },
  declared: ReadonlySet<string>,
): RoleChange {
  return {
    ...(value.name !== undefined ? { name: checkRoleName(value.name, ['body', 'name']) } : {}),
    ...(value.permissions !== undefined
      ? { permissions: checkRolePermissions(value.permissions, declared, ['body', 'permissions']) }
      : {}),
  }
}

/** @internal The roles a key holds, as given: distinct names, at most 50; `null` for none. */
export function checkKeyRoles(value: unknown, loc: readonly string[]): readonly string[] | null {
  if (value === null || value === undefined) return null
  if (!Array.isArray(value)) throw new KeywardError(ErrorType.listType, 'Input should be a valid list.', loc)
  if (value.length > MAX_KEY_ROLES) {
    throw new KeywardError(
      ErrorType.tooLong,
      `A key holds at most ${MAX_KEY_ROLES} roles, got ${value.length}.`,
      loc,
    )
  }
  const names = value.map((name, index) => checkRoleName(name, [...loc, String(index)]))
  return names.length === 0 ? null : [...new Set(names)]
}
