import {
  ErrorType,
  encodeCursor,
  isKeywardError,
  type Keyward,
  type KeywardError,
  MAX_PAGE_LIMIT,
  type RoleRecord,
  roleToJson,
} from '@keyward/core'
import { type Command, type CommandContext, idArgument, listOption, stringOption } from '../command.js'
import { CliError, EXIT, usageError } from '../exit.js'
import { plural, printable, table, timestamp } from '../output.js'
import { everyPage, pageOptions } from './keys.js'
import { asUsage, PERMISSIONS_ENV, serviceOptions } from './policies.js'

const permissionsOf = (role: RoleRecord) => role.permissions.join(', ') || '-'

const noSuchRole = (id: string) =>
  new CliError(ErrorType.notFound, `No role with id ${printable(id)}.`, EXIT.failed)

// The role named by `<role-id>`, or exit 1.
async function roleArgument(keyward: Keyward, context: CommandContext): Promise<RoleRecord> {
  const id = idArgument(context.positionals[0], '<role-id>')
  const role = await keyward.findRole(id)
  if (role === null) throw noSuchRole(id)
  return role
}

const ID_ARGUMENT = ['role-id', 'the id of the role (from keyward roles list)'] as const
const PERMISSION_OPTION = {
  flags: '--permission <name>',
  help: `a permission of the role, one of ${PERMISSIONS_ENV} or a wildcard such as reports:* (repeat it)`,
  repeatable: true,
} as const

/** `keyward roles create --project ID --name NAME [--permission P ...]`. */
export const rolesCreateCommand: Command = {
  name: 'roles create',
  summary: 'Create a role: a named set of permissions that API keys hold by name',
  description:
    'Creates a role in the project: a name (1 to 100 characters, unique within the project) and its ' +
    `permissions (--permission, repeatable: names the host declares in ${PERMISSIONS_ENV}, or wildcards ` +
    'such as reports:* or *). Give it to keys with keyward keys create --role or keyward keys update --role: ' +
    "a key may do what its own permissions and its roles' allow.",
  arguments: [],
  options: [
    { flags: '--project <id>', help: 'the project the role belongs to' },
    { flags: '--name <name>', help: 'the name keys give it by, 1 to 100 characters' },
    PERMISSION_OPTION,
  ],
  store: true,
  exitCodes: '0 created, 1 refused (the project has a role of this name), 2 usage error, 3 store unavailable',
  async run(context) {
    const projectId = idArgument(stringOption(context, 'project'), '--project')
    const name = stringOption(context, 'name')
    if (name === undefined) throw usageError('--name is required.')
    const permissions = listOption(context, 'permission') ?? []
    return context.withKeyward(async (keyward) => {
      const role = await asUsage(() => keyward.createRole(projectId, { name, permissions }))
      context.print(
        `Created role ${role.id} (${printable(role.name)}) of project ${printable(projectId)}: ${permissionsOf(role)}.`,
        roleToJson(role),
      )
      return EXIT.ok
    }, serviceOptions(context))
  },
}

/** `keyward roles list --project ID [--limit N] [--cursor C]`. */
export const rolesListCommand: Command = {
  name: 'roles list',
  summary: "List a project's roles and their permissions",
  description:
    "Lists the project's roles, newest first: all of them, or one page with --limit or --cursor (the " +
    'last line says how to ask for the next page; --json gives its next_cursor).',
  arguments: [],
  options: [
    { flags: '--project <id>', help: "list this project's roles" },
    {
      flags: '--limit <n>',
      help: `one page of at most n roles, 1 to ${MAX_PAGE_LIMIT} (default: every one)`,
    },
    { flags: '--cursor <cursor>', help: 'the page after this cursor (from a previous page)' },
  ],
  store: true,
  exitCodes: '0 listed (also when there are none), 2 usage error, 3 store unavailable',
  async run(context) {
    const projectId = idArgument(stringOption(context, 'project'), '--project')
    const paging = pageOptions(context)
    return context.withKeyward(async (keyward) => {
      const page = paging
        ? await keyward.listRolesPage(projectId, paging)
        : await everyPage((query) => keyward.listRolesPage(projectId, query))
      const nextCursor = page.next ? encodeCursor(page.next) : null
      const more = nextCursor
        ? `\nMore roles: keyward roles list --project ${printable(projectId)} --limit ${paging?.limit} --cursor ${nextCursor}`
        : ''
      const text =
        page.records.length === 0
          ? `No roles in project ${printable(projectId)}.${more}`
          : `${table(
              ['ID', 'NAME', 'PERMISSIONS', 'UPDATED'],
              page.records.map((role) => [
                role.id,
                role.name,
                permissionsOf(role),
                timestamp(role.updatedAt),
              ]),
            )}\n\n${plural(page.records.length, 'role')}.${more}`
      context.print(text, { roles: page.records.map(roleToJson), next_cursor: nextCursor })
      return EXIT.ok
    })
  },
}

/** `keyward roles show <role-id>`. */
export const rolesShowCommand: Command = {
  name: 'roles show',
  summary: 'Show a role: its name and permissions',
  description: 'Shows the role with this id. --json prints what the API answers for it.',
  arguments: [ID_ARGUMENT],
  options: [],
  store: true,
  exitCodes: '0 shown, 1 no such role, 2 usage error, 3 store unavailable',
  async run(context) {
    return context.withKeyward(async (keyward) => {
      const role = await roleArgument(keyward, context)
      context.print(
        [
          `Role ${role.id}`,
          `  Name         ${printable(role.name)}`,
          `  Project      ${printable(role.projectId)}`,
          `  Permissions  ${permissionsOf(role)}`,
          `  Created      ${timestamp(role.createdAt)}`,
          `  Updated      ${timestamp(role.updatedAt)}`,
        ].join('\n'),
        roleToJson(role),
      )
      return EXIT.ok
    })
  },
}

/** `keyward roles update <role-id> [--name NAME] [--permission P ... | --clear-permissions]`. */
export const rolesUpdateCommand: Command = {
  name: 'roles update',
  summary: "Change a role's name or permissions; every key that holds it follows",
  description:
    'Changes the role with this id; what is not named stays. --name renames it (keys hold it by id, so ' +
    'they keep it); --permission (repeatable) replaces its permissions, --clear-permissions empties them. ' +
    'Every key that holds the role has the new permissions in every server process within its ' +
    'revocation bound, as a revocation.',
  arguments: [ID_ARGUMENT],
  options: [
    { flags: '--name <name>', help: 'a new name, 1 to 100 characters' },
    PERMISSION_OPTION,
    { flags: '--clear-permissions', help: 'take every permission from the role' },
  ],
  store: true,
  exitCodes: '0 updated, 1 no such role, or the name is taken, 2 usage error, 3 store unavailable',
  async run(context) {
    const name = stringOption(context, 'name')
    const given = listOption(context, 'permission')
    const none = context.values['clear-permissions'] === true
    if (given !== undefined && none) throw usageError('--clear-permissions cannot go with --permission.')
    const permissions = none ? [] : given
    if (name === undefined && permissions === undefined) {
      throw usageError('Give at least one of --name, --permission, --clear-permissions.')
    }
    const change = {
      ...(name === undefined ? {} : { name }),
      ...(permissions === undefined ? {} : { permissions }),
    }
    return context.withKeyward(async (keyward) => {
      const role = await roleArgument(keyward, context)
      const updated = await asUsage(() => keyward.updateRole(role.id, change))
      if (updated === null) throw noSuchRole(role.id)
      context.print(
        `Updated role ${updated.id} (${printable(updated.name)}): ${permissionsOf(updated)}.`,
        roleToJson(updated),
      )
      return EXIT.ok
    }, serviceOptions(context))
  },
}

/** `keyward roles delete <role-id> [--detach]`. */
export const rolesDeleteCommand: Command = {
  name: 'roles delete',
  summary: 'Delete a role; with --detach, take it from the keys and identities that hold it first',
  description:
    'Deletes the role with this id. While keys or identities hold it, it is kept (role_in_use, saying ' +
    'how many): take it from them with keyward keys update or keyward identities update --role or ' +
    '--clear-roles, or give --detach, which takes it from every key and identity that holds it and ' +
    'deletes it in one transaction.',
  arguments: [ID_ARGUMENT],
  options: [
    {
      flags: '--detach',
      help: 'take the role from the keys and identities that hold it and delete it, in one step',
    },
  ],
  store: true,
  exitCodes:
    '0 deleted, 1 no such role, or keys or identities hold it (without --detach), 2 usage error, 3 store unavailable',
  async run(context) {
    const detach = context.values.detach === true
    return context.withKeyward(async (keyward) => {
      const role = await roleArgument(keyward, context)
      const deleted = await keyward.deleteRole(role.id, { detach }).catch((error: unknown) => {
        if (!isKeywardError(error) || error.type !== ErrorType.roleInUse) throw error
        throw new CliError(
          error.type,
          (error as KeywardError).msg.replace('with detach', 'with --detach'),
          EXIT.failed,
        )
      })
      if (deleted === null) throw noSuchRole(role.id)
      const keys = deleted.detached.length
      const identities = deleted.detachedIdentities.length
      const from = [
        ...(keys > 0 ? [plural(keys, 'key')] : []),
        ...(identities > 0 ? [identities === 1 ? '1 identity' : `${identities} identities`] : []),
      ]
      context.print(
        `Deleted role ${role.id} (${printable(role.name)})${from.length > 0 ? `, taken from ${from.join(' and ')}` : ''}.`,
        {
          id: role.id,
          deleted: true,
          detached_keys: deleted.detached.map((key) => key.id),
          detached_identities: deleted.detachedIdentities.map((identity) => identity.id),
        },
      )
      return EXIT.ok
    })
  },
}
