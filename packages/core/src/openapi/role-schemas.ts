import { Type } from '@sinclair/typebox'
import { MAX_PERMISSIONS, PERMISSION_PATTERN, WILDCARD_PATTERN } from '../policy/policies.js'
import { MAX_KEY_ROLES, MAX_ROLE_NAME_LENGTH } from '../roles/model.js'

const timestamp = (description: string) => Type.String({ format: 'date-time', description })

/** A permission as a key or a role is granted it: a declared name, or a wildcard (`reports:*`, `*`). */
export const GrantedPermissionSchema = Type.String({
  pattern: `${PERMISSION_PATTERN.source}|${WILDCARD_PATTERN.source}`,
  description:
    'A permission the server declares, or a wildcard: `reports:*` (every declared permission that starts with `reports:`, ' +
    'including those declared later) or `*` (all of them). Wildcards are granted, never required.',
})

// A role's name: 1 to 100 characters, no control character (checked as a key's name is).
const roleName = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: MAX_ROLE_NAME_LENGTH,
    pattern: '^[^\\u0000-\\u001F\\u007F]*$',
    description,
  })

const rolePermissions = Type.Array(GrantedPermissionSchema, {
  maxItems: MAX_PERMISSIONS,
  description: 'The permissions the role gives every key that holds it; may be empty.',
})

// The `roles` of a holder (an API key or an identity), by name, or `null` for none.
const heldRoles = (item: string, description: string) =>
  Type.Union(
    [
      Type.Array(roleName(item), {
        maxItems: MAX_KEY_ROLES,
        description: `At most ${MAX_KEY_ROLES} distinct names.`,
      }),
      Type.Null(),
    ],
    { description },
  )

/** The `roles` of an API key, by name: at creation, in `PATCH`, and as listings show them. */
export const KeyRolesSchema = heldRoles(
  "A role of the key's project, by name.",
  "The roles the key holds, by name (422 `role_unknown` at the name the project has none of); `null` for none. The key may do what its own permissions and its roles' allow.",
)

/** The `roles` of an identity, by name: at creation, in `PATCH`, and as it is shown. */
export const IdentityRolesSchema = heldRoles(
  "A role of the identity's project, by name.",
  'The roles the identity holds, by name (422 `role_unknown` at the name the project has none of); `null` for none. Every key of the identity may do what they allow, besides its own permissions and roles.',
)

/** The body of `POST .../roles`. */
export const CreateRoleBodySchema = Type.Object(
  {
    name: roleName('1 to 100 characters, unique within the project (409 `role_exists`).'),
    permissions: rolePermissions,
  },
  {
    additionalProperties: false,
    description:
      'Unknown fields are refused (`extra_forbidden`). A permission must be declared by the server.',
  },
)

/** The body of `PATCH .../roles/{role_id}`. */
export const UpdateRoleBodySchema = Type.Object(
  {
    name: Type.Optional(roleName('A new name, unique within the project (409 `role_exists`).')),
    permissions: Type.Optional(rolePermissions),
  },
  {
    additionalProperties: false,
    description:
      'Any of `name` and `permissions`; fields left out stay as they are. Every key that holds the role has the new ' +
      'permissions within the revocation bound (before the call returns under strict revocation). Unknown fields are refused (`extra_forbidden`).',
  },
)

/** A role: a name for a set of permissions, given to API keys by name. */
export const RoleSchema = Type.Object({
  id: Type.String({ description: "The role's id: what its operations take." }),
  project_id: Type.String(),
  name: Type.String({ description: 'What keys name it by, in their `roles`.' }),
  permissions: Type.Array(Type.String()),
  created_at: timestamp('When the role was created.'),
  updated_at: timestamp('When it last changed.'),
})

/** A page of a project's roles, newest first. */
export const RoleListSchema = Type.Object({
  roles: Type.Array(RoleSchema),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description:
      'Pass it as `?cursor=` for the next page; `null` on the last page. Opaque: send it back as it is.',
  }),
})

/** The answer to deleting a role. */
export const DeletedRoleSchema = Type.Object({
  id: Type.String(),
  deleted: Type.Literal(true),
  detached_keys: Type.Array(Type.String(), {
    description: 'The ids of the keys the role was taken from (with `detach=true`); empty otherwise.',
  }),
  detached_identities: Type.Array(Type.String(), {
    description: 'The ids of the identities the role was taken from (with `detach=true`); empty otherwise.',
  }),
})

/** The role schemas of `components.schemas`. */
export const ROLE_SCHEMAS = {
  GrantedPermission: GrantedPermissionSchema,
  KeyRoles: KeyRolesSchema,
  IdentityRoles: IdentityRolesSchema,
  CreateRoleBody: CreateRoleBodySchema,
  UpdateRoleBody: UpdateRoleBodySchema,
  Role: RoleSchema,
  RoleList: RoleListSchema,
  DeletedRole: DeletedRoleSchema,
}
