import {
  displayKey,
  type KeyOwner,
  type KeyRecord,
  type Keyward,
  keyToJson,
  rolledKeyToJson,
} from '@keyward/core'
import { type Command, type CommandContext, idArgument, stringOption } from '../command.js'
import { CliError, EXIT, usageError } from '../exit.js'
import { printable, table, timestamp } from '../output.js'

const OWNER_LABEL = { developer: 'developer', project: 'project' } as const

const listed = (keyward: Keyward, record: KeyRecord) => keyToJson(record, keyward.isRotationDue(record))
const optionalTime = (date: Date | null | undefined) => (date ? timestamp(date) : '-')
const describe = (record: KeyRecord) =>
  `${displayKey(record.keyPrefix)}, ${OWNER_LABEL[record.ownerType]} ${printable(record.ownerId)}`

// The key named by the <key-id> argument, or exit 1.
async function namedKey(context: CommandContext, keyward: Keyward): Promise<KeyRecord> {
  const keyId = idArgument(context.positionals[0], '<key-id>')
  const record = await keyward.findKey(keyId)
  if (!record) throw new CliError('not_found', `No key with id ${printable(keyId)}.`, EXIT.failed)
  return record
}

/** `keyward keys list --developer ID | --project ID`: the owner's keys, by prefix only. */
export const listCommand: Command = {
  name: 'keys list',
  summary: "List a developer's or a project's keys (prefixes only)",
  usage: 'keys list (--developer ID | --project ID) [--due] [options]',
  description:
    "Lists a developer's or a project's keys, active or not, oldest first. A key shows as its " +
    '8-character prefix (ak_Ab3xY...): the full key is never stored, so it can never be listed. ' +
    'USED is when the key last authenticated (recorded at most once a minute per server process); ' +
    'DUE marks keys older than the rotation period (90 days): roll them with keyward keys roll.',
  options: { developer: { type: 'string' }, project: { type: 'string' }, due: { type: 'boolean' } },
  optionHelp: [
    ['--developer ID', "list this developer's keys"],
    ['--project ID', "list this project's API keys"],
    ['--due', 'list only the keys due for rotation'],
  ],
  positionals: [],
  store: true,
  exitCodes: '0 listed (also when there are none), 2 usage error, 3 store unavailable',
  async run(context) {
    const developer = stringOption(context, 'developer')
    const project = stringOption(context, 'project')
    if ((developer === undefined) === (project === undefined)) {
      throw usageError('Give exactly one of --developer ID or --project ID.')
    }
    const owner: KeyOwner =
      developer !== undefined
        ? { type: 'developer', id: idArgument(developer, '--developer') }
        : { type: 'project', id: idArgument(project, '--project') }
    return context.withKeyward(async (keyward) => {
      const all = await keyward.listKeys(owner)
      const due = context.values.due === true
      const keys = due ? all.filter((record) => keyward.isRotationDue(record)) : all
      const active = keys.filter((record) => record.active).length
      const text =
        keys.length === 0
          ? `No ${due ? 'keys due for rotation' : 'keys'} for ${OWNER_LABEL[owner.type]} ${printable(owner.id)}.`
          : `${table(
              ['ID', 'KEY', 'NAME', 'ACTIVE', 'CREATED', 'EXPIRES', 'USED', 'DUE'],
              keys.map((r) => [
                r.id,
                displayKey(r.keyPrefix),
                r.name ?? '-',
                r.active ? 'yes' : 'no',
                timestamp(r.createdAt),
                optionalTime(r.expiresAt),
                optionalTime(r.lastUsedAt),
                keyward.isRotationDue(r) ? 'yes' : 'no',
              ]),
            )}\n\n${keys.length} key${keys.length === 1 ? '' : 's'}${due ? ' due for rotation' : ''}, ${active} active.`
      context.print(text, { keys: keys.map((record) => listed(keyward, record)) })
      return EXIT.ok
    })
  },
}

/** `keyward keys revoke <key-id>`: deactivates a key of either kind. */
export const revokeCommand: Command = {
  name: 'keys revoke',
  summary: 'Revoke (deactivate) a key by its id',
  usage: 'keys revoke <key-id> [options]',
  description:
    'Deactivates the key with this id, a developer key or an API key: it fails authentication from ' +
    'now on. Revoking a key that is already inactive changes nothing and succeeds. Find key ids with ' +
    'keyward keys list.',
  options: {},
  optionHelp: [],
  positionals: ['key-id'],
  store: true,
  exitCodes: '0 revoked (or already inactive), 1 no such key, 2 usage error, 3 store unavailable',
  async run(context) {
    return context.withKeyward(async (keyward) => {
      const current = await namedKey(context, keyward)
      const updated = (await keyward.deactivateKey(current.id)) ?? current
      context.print(
        current.active
          ? `Revoked key ${updated.id} (${describe(updated)}).`
          : `Key ${updated.id} (${describe(updated)}) was already inactive.`,
        listed(keyward, updated),
      )
      return EXIT.ok
    })
  },
}

/** `keyward keys activate <key-id>`: re-activates a key, within the owner's limit. */
export const activateCommand: Command = {
  name: 'keys activate',
  summary: 'Re-activate a key by its id',
  usage: 'keys activate <key-id> [options]',
  description:
    'Re-activates the key with this id: it authenticates again. A developer at the limit of 10 active ' +
    'keys is refused (limit_exceeded); an expired key or a rolled one cannot be re-activated. Activating ' +
    'a key that is already active changes nothing and succeeds.',
  options: {},
  optionHelp: [],
  positionals: ['key-id'],
  store: true,
  exitCodes:
    '0 active, 1 no such key or refused (limit, expired, rolled), 2 usage error, 3 store unavailable',
  async run(context) {
    return context.withKeyward(async (keyward) => {
      const current = await namedKey(context, keyward)
      const updated = (await keyward.activateKey(current.id)) ?? current
      context.print(
        current.active
          ? `Key ${updated.id} (${describe(updated)}) was already active.`
          : `Activated key ${updated.id} (${describe(updated)}).`,
        listed(keyward, updated),
      )
      return EXIT.ok
    })
  },
}

const ROLL_NOTICE = 'This key will not be shown again: store it now, then move its users to it.'

/** `keyward keys roll <key-id> [--grace-seconds N]`: a new key; the old one works for the grace window. */
export const rollCommand: Command = {
  name: 'keys roll',
  summary: 'Replace a key with a new one; the old one keeps working for a grace window',
  usage: 'keys roll <key-id> [--grace-seconds N] [options]',
  description:
    'Issues a new key for the same owner, with the same name and lifetime, and prints it in full, this ' +
    'once. The old key keeps working for the grace window (default 86400 seconds, at most 604800; 0 stops ' +
    "it at once), then expires. Watch the old key's USED time in keyward keys list, then revoke it.",
  options: { 'grace-seconds': { type: 'string' } },
  optionHelp: [['--grace-seconds N', 'how long the old key keeps working, 0 to 604800 (default 86400)']],
  positionals: ['key-id'],
  store: true,
  exitCodes:
    '0 rolled, 1 no such key or refused (rolled, expired, inactive), 2 usage error, 3 store unavailable',
  async run(context) {
    const grace = stringOption(context, 'grace-seconds')
    if (grace !== undefined && !/^\d{1,7}$/.test(grace)) {
      throw usageError('--grace-seconds must be a whole number of seconds, 0 to 604800.')
    }
    return context.withKeyward(async (keyward) => {
      const current = await namedKey(context, keyward)
      const rolled = await keyward.rollKey(
        current.id,
        grace === undefined ? {} : { graceSeconds: Number(grace) },
      )
      if (!rolled) throw new CliError('not_found', `No key with id ${printable(current.id)}.`, EXIT.failed)
      const until = rolled.previous.expiresAt ? timestamp(rolled.previous.expiresAt) : '-'
      context.print(
        [
          `Rolled key ${current.id} (${describe(current)}).`,
          '',
          `  New key     ${rolled.key}`,
          `  Key id      ${rolled.record.id}`,
          `  Old key id  ${rolled.previous.id}, works until ${until}`,
          '',
          ROLL_NOTICE,
        ].join('\n'),
        { ...rolledKeyToJson(rolled), notice: ROLL_NOTICE },
      )
      return EXIT.ok
    })
  },
}
