import { checkName, isKeywardError, issuedKeyToJson } from '@keyward/core'
import { type Command, idArgument, stringOption } from '../command.js'
import { CliError, EXIT, usageError } from '../exit.js'
import { printable } from '../output.js'

const NOT_SHOWN_AGAIN = 'This key will not be shown again: store it now, e.g. as SERVICE_DEVELOPER_KEY.'

/** `keyward developers register <developer-id>`: the first developer key, printed once. */
export const registerCommand: Command = {
  name: 'developers register',
  summary: 'Register a developer and print their first developer key, once',
  usage: 'developers register <developer-id> [--name NAME] [options]',
  description:
    'Issues the first developer key of <developer-id> and prints it in full, this once: only its hash ' +
    'and its 8-character prefix are stored. The developer then creates projects and further keys ' +
    'through the API with it.\n\n' +
    'A developer who already has an active key is refused: they issue more keys themselves. To let a ' +
    'developer who lost access back in, revoke their keys (keyward keys list --developer ID, then ' +
    'keyward keys revoke KEY-ID) and register them again.',
  options: { name: { type: 'string' } },
  optionHelp: [['--name NAME', 'a descriptive name for the key, 1 to 100 characters']],
  positionals: ['developer-id'],
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
      const keys = await keyward.listKeys({ type: 'developer', id: developerId })
      const active = keys.filter((record) => record.active).length
      if (active > 0) {
        throw new CliError(
          'already_registered',
          `Developer ${printable(developerId)} is already registered (${active} active key${active === 1 ? '' : 's'}). ` +
            'They issue more keys with their own (POST /api/v1/auth/developer-keys). If they lost access, revoke ' +
            'their keys with keyward keys revoke and register them again.',
          EXIT.failed,
        )
      }
      const issued = await keyward.issueDeveloperKey(developerId, { name })
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
