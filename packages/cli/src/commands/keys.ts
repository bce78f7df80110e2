import { displayKey, type KeyOwner, keyToJson } from '@keyward/core'
import { type Command, type CommandContext, idArgument, stringOption } from '../command.js'
import { CliError, EXIT, type ExitCode, usageError } from '../exit.js'
import { plural, printable, table, timestamp } from '../output.js'

const OWNER_LABEL = { developer: 'developer', project: 'project' } as const

/** `keyward keys list --developer ID | --project ID`: the owner's keys, by prefix only. */
export const listCommand: Command = {
  name: 'keys list',
  summary: "List a developer's or a project's keys (prefixes only)",
  description:
    "Lists a developer's or a project's keys, active or not, oldest first. A key shows as its " +
    '8-character prefix (ak_Ab3xY...): the full key is never stored, so it can never be listed.',
  arguments: [],
  options: [
    { flags: '--developer <id>', help: "list this developer's keys" },
    { flags: '--project <id>', help: "list this project's API keys" },
  ],
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
      const keys = await keyward.listKeys(owner)
      const active = keys.filter((record) => record.active).length
      const text =
        keys.length === 0
          ? `No keys for ${OWNER_LABEL[owner.type]} ${printable(owner.id)}.`
          : `${table(
              ['ID', 'KEY', 'NAME', 'ACTIVE', 'CREATED'],
              keys.map((r) => [
                r.id,
                displayKey(r.keyPrefix),
                r.name ?? '-',
                r.active ? 'yes' : 'no',
                timestamp(r.createdAt),
              ]),
            )}\n\n${plural(keys.length, 'key')}, ${active} active.`
      context.print(text, { keys: keys.map(keyToJson) })
      return EXIT.ok
    })
  },
}

/** Finds the key, sets it active or not, and says what changed; exits 1 for an unknown id. */
async function setActive(context: CommandContext, active: boolean): Promise<ExitCode> {
  const keyId = idArgument(context.positionals[0], '<key-id>')
  const { changed, updated } = await context.withKeyward(async (keyward) => {
    const current = await keyward.findKey(keyId)
    const updated = current && (await (active ? keyward.activateKey(keyId) : keyward.deactivateKey(keyId)))
    if (!current || !updated)
      throw new CliError('not_found', `No key with id ${printable(keyId)}.`, EXIT.failed)
    return { changed: current.active !== active, updated }
  })
  const what = `${displayKey(updated.keyPrefix)}, ${OWNER_LABEL[updated.ownerType]} ${printable(updated.ownerId)}`
  context.print(
    changed
      ? `${active ? 'Activated' : 'Revoked'} key ${updated.id} (${what}).`
      : `Key ${updated.id} (${what}) was already ${active ? 'active' : 'inactive'}.`,
    keyToJson(updated),
  )
  return EXIT.ok
}

/** `keyward keys revoke <key-id>`: deactivates a key of either kind. */
export const revokeCommand: Command = {
  name: 'keys revoke',
  summary: 'Revoke (deactivate) a key by its id',
  description:
    'Deactivates the key with this id, a developer key or an API key: it fails authentication from ' +
    'now on. Revoking a key that is already inactive changes nothing and succeeds. Find key ids with ' +
    'keyward keys list; keyward keys activate undoes it.',
  arguments: [['key-id', 'the id of the key (from keyward keys list)']],
  options: [],
  store: true,
  exitCodes: '0 revoked (or already inactive), 1 no such key, 2 usage error, 3 store unavailable',
  run: (context) => setActive(context, false),
}

/** `keyward keys activate <key-id>`: re-activates a key, within the owner's limit. */
export const activateCommand: Command = {
  name: 'keys activate',
  summary: 'Re-activate a revoked key by its id, within the limit',
  description:
    'Re-activates the key with this id, a developer key or an API key: it passes authentication ' +
    'again. A developer may have at most 10 active keys: re-activating one more is refused ' +
    '(limit_exceeded), atomically, as the API refuses it. Activating a key that is already active ' +
    'changes nothing and succeeds.',
  arguments: [['key-id', 'the id of the key (from keyward keys list)']],
  options: [],
  store: true,
  exitCodes:
    '0 activated (or already active), 1 no such key or the limit refused it, 2 usage error, 3 store unavailable',
  run: (context) => setActive(context, true),
}
