import { checkName, ErrorType, isKeywardError, issuedKeyToJson } from '@keyward/core'
import { type Command, idArgument, stringOption } from '../command.js'
import { CliError, EXIT, usageError } from '../exit.js'
import { plural, printable, table, timestamp } from '../output.js'

const NOT_SHOWN_AGAIN = 'This key will not be shown again: store it now, e.g. as SERVICE_DEVELOPER_KEY.'

/** `keyward developers register <developer-id>`: the first developer key, printed once. */
export const registerCommand: Command = {
  name: 'developers register',
  summary: 'Register a developer and print their first developer key, once',
  description:
    'Issues the first developer key of <developer-id> and prints it in full, this once: only its hash ' +
    'and its 8-character prefix are stored. The developer then creates projects and further keys ' +
    'through the API with it.\n\n' +
    'A developer who already has an active key is refused: they issue more keys themselves. The check ' +
    'and the issue are one atomic step of the store, so two registrations at once give one key. To let ' +
    'a developer who lost access back in, revoke their keys (keyward keys list --developer ID, then ' +
    'keyward keys revoke KEY-ID) and register them again.',
  arguments: [['developer-id', 'the id of the developer, as your application knows them']],
  options: [{ flags: '--name <name>', help: 'a descriptive name for the key, 1 to 100 characters' }],
  store: true,
  exitCodes: '0 registered, 1 refused (already registered), 2 usage error, 3 store unavailable',
  async run(context) {
    const developerId = idArgument(context.positionals[0], '<developer-id>')
    let name: string | null
    try {
      name = checkName(stringOption(context, 'name'), ['option', '--name'])
    } catch (error) {
      if (isKeywardError(error)) throw usageError(`--name: ${error.msg}`)
      throw error
    }
    return context.withKeyward(async (keyward) => {
      // "Not registered yet" and the issue are one atomic step (a limit of one active key): the
      // store refuses the key if the developer has an active one, even at the same moment. The
      // audit log records the registration and the key.
      const issued = await keyward.registerDeveloper(developerId, { name }).catch(async (error) => {
        if (!isKeywardError(error) || error.type !== ErrorType.limitExceeded) throw error
        const active = (await keyward.listKeys({ type: 'developer', id: developerId })).filter(
          (record) => record.active,
        ).length
        throw new CliError(
          'already_registered',
          `Developer ${printable(developerId)} is already registered (${plural(active, 'active key')}). ` +
            'They issue more keys with their own (POST /api/v1/auth/developer-keys). If they lost access, ' +
            'revoke their keys with keyward keys revoke and register them again.',
          EXIT.failed,
        )
      })
      const { key, record } = issued
      context.print(
        [
          `Registered developer ${printable(developerId)}.`,
          '',
          `  Developer key  ${key}`,
          `  Key id         ${record.id}`,
          ...(record.name === null ? [] : [`  Name           ${printable(record.name)}`]),
          '',
          NOT_SHOWN_AGAIN,
        ].join('\n'),
        { ...issuedKeyToJson(issued), notice: NOT_SHOWN_AGAIN },
      )
      return EXIT.ok
    })
  },
}

/** `keyward developers list`: every developer that has keys, with counts. */
export const developersListCommand: Command = {
  name: 'developers list',
  summary: 'List the developers that have developer keys, with their key counts',
  description:
    'Lists every developer that the store holds developer keys for, oldest first: how many keys ' +
    'each has, how many are active, and when the first and the latest were issued. A developer ' +
    'with no active key cannot sign in: register them again, or re-activate a key with ' +
    'keyward keys activate.',
  arguments: [],
  options: [],
  store: true,
  exitCodes: '0 listed (also when there are none), 2 usage error, 3 store unavailable',
  async run(context) {
    return context.withKeyward(async (keyward) => {
      const developers = await keyward.listOwners('developer')
      const active = developers.filter((d) => d.activeKeys > 0).length
      const text =
        developers.length === 0
          ? 'No developers: register one with keyward developers register <developer-id>.'
          : `${table(
              ['DEVELOPER', 'KEYS', 'ACTIVE', 'FIRST KEY', 'LATEST KEY'],
              developers.map((d) => [
                d.id,
                String(d.keys),
                String(d.activeKeys),
                timestamp(d.firstCreatedAt),
                timestamp(d.lastCreatedAt),
              ]),
            )}\n\n${plural(developers.length, 'developer')}, ${active} with an active key.`
      context.print(text, {
        developers: developers.map((d) => ({
          developer_id: d.id,
          keys: d.keys,
          active_keys: d.activeKeys,
          first_created_at: d.firstCreatedAt.toISOString(),
          last_created_at: d.lastCreatedAt.toISOString(),
        })),
      })
      return EXIT.ok
    })
  },
}
