import { displayKey, type KeyOwner, keyToJson } from '@keyward/core'
import { type Command, idArgument, stringOption } from '../command.js'
import { CliError, EXIT, usageError } from '../exit.js'
import { printable, table, timestamp } from '../output.js'

const OWNER_LABEL = { developer: 'developer', project: 'project' } as const

/** `keyward keys list --developer ID | --project ID`: the owner's keys, by prefix only. */
export const listCommand: Command = {
  name: 'keys list',
  summary: "List a developer's or a project's keys (prefixes only)",
  usage: 'keys list (--developer ID | --project ID) [options]',
  description:
    "Lists a developer's or a project's keys, active or not, oldest first. A key shows as its " +
    '8-character prefix (ak_Ab3xY...): the full key is never stored, so it can never be listed.',
  options: { developer: { type: 'string' }, project: { type: 'string' } },
  optionHelp: [
    ['--developer ID', "list this developer's keys"],
    ['--project ID', "list this project's API keys"],
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
            )}\n\n${keys.length} key${keys.length === 1 ? '' : 's'}, ${active} active.`
      context.print(text, { keys: keys.map(keyToJson) })
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
    const keyId = idArgument(context.positionals[0], '<key-id>')
    return context.withKeyward(async (keyward) => {
      const current = await keyward.findKey(keyId)
      const updated = current && (await keyward.deactivateKey(keyId))
      if (!current || !updated)
        throw new CliError('not_found', `No key with id ${printable(keyId)}.`, EXIT.failed)
      const what = `${displayKey(updated.keyPrefix)}, ${OWNER_LABEL[updated.ownerType]} ${printable(updated.ownerId)}`
      context.print(
        current.active
          ? `Revoked key ${updated.id} (${what}).`
          : `Key ${updated.id} (${what}) was already inactive.`,
        keyToJson(updated),
      )
      return EXIT.ok
    })
  },
}
