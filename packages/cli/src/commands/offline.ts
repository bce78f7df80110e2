import {
  checkKeyFormat,
  displayKey,
  generateKey,
  hashKey,
  isKeywardError,
  type KeyKind,
  keyPrefix,
  type LegacyDeveloperKeyPolicy,
} from '@keyward/core'
import { type Command, stringOption } from '../command.js'
import { EXIT } from '../exit.js'
import { readKeyFromStdin } from '../io.js'

const KINDS: readonly KeyKind[] = ['developer', 'project']
const POLICIES: readonly LegacyDeveloperKeyPolicy[] = ['reject', 'accept']
const KIND_NAME: Readonly<Record<KeyKind, string>> = { developer: 'developer key', project: 'API key' }

/** @internal The format problem of a key, or `null`: core's `checkKeyFormat`, as a value. */
function formatProblem(key: string, kind: KeyKind, legacyDeveloperKeys: LegacyDeveloperKeyPolicy) {
  try {
    checkKeyFormat(key, kind, { legacyDeveloperKeys })
    return null
  } catch (error) {
    if (isKeywardError(error)) return { type: error.type, msg: error.msg }
    throw error
  }
}

/** `keyward generate`: a new key, offline. */
export const generateCommand: Command = {
  name: 'generate',
  summary: 'Print a new random key (offline)',
  description:
    'Prints a new key, ak_ followed by 32 random characters from a cryptographically secure ' +
    'generator, and nothing else. It is not stored anywhere. With --json, also its prefix and hash.',
  arguments: [],
  options: [],
  store: false,
  exitCodes: '0 printed, 2 usage error',
  async run(context) {
    const key = generateKey()
    context.print(key, {
      key,
      key_prefix: keyPrefix(key),
      display: displayKey(key),
      hash: await hashKey(key),
    })
    return EXIT.ok
  },
}

/** `keyward check`: explains why a key (from stdin) is malformed. */
export const checkCommand: Command = {
  name: 'check',
  summary: 'Check the format of a key read from stdin, and say what is wrong',
  description:
    'Reads one key from stdin (one trailing newline is ignored) and checks its format by the rules ' +
    'the server applies first: at least 16 characters, the ak_ prefix, exactly 35 characters, only ' +
    "A-Z a-z 0-9 '-' '_'. If it fails, prints the first rule it breaks. It does not ask the server " +
    'whether the key exists or is active. Stdin, not an argument, so that the key stays out of shell ' +
    'history; a terminal is refused.',
  arguments: [],
  options: [
    {
      flags: '--kind <kind>',
      help: 'the kind of key: the rules differ only for legacy dk_ keys',
      choices: KINDS,
      default: 'developer',
    },
    {
      flags: '--legacy-developer-keys <policy>',
      help: 'reject (as the server does by default) or accept dk_ developer keys',
      choices: POLICIES,
      default: 'reject',
    },
  ],
  store: false,
  exitCodes: '0 well-formed, 1 malformed, 2 usage error (no key, or a terminal)',
  async run(context) {
    // Commander checked both against their choices and applied the defaults.
    const kind = stringOption(context, 'kind') as KeyKind
    const legacy = stringOption(context, 'legacy-developer-keys') as LegacyDeveloperKeyPolicy
    const key = await readKeyFromStdin(context.io, 'check')
    const problem = formatProblem(key, kind, legacy)
    if (problem === null) {
      context.print(`${displayKey(key)} is a well-formed ${KIND_NAME[kind]}.`, {
        valid: true,
        kind,
        display: displayKey(key),
      })
      return EXIT.ok
    }
    context.print(`Not a well-formed ${KIND_NAME[kind]}: ${problem.msg} (${problem.type})`, {
      valid: false,
      kind,
      type: problem.type,
      msg: problem.msg,
    })
    return EXIT.failed
  },
}

/** `keyward hash`: the SHA-256 a store keeps of a key read from stdin. */
export const hashCommand: Command = {
  name: 'hash',
  summary: 'Print the SHA-256 hash of a key read from stdin, as stores keep it',
  description:
    'Reads one key from stdin (one trailing newline is ignored) and prints its SHA-256 as 64 ' +
    'lower-case hex characters: the value a store keeps and looks keys up by. Stdin, not an ' +
    'argument, so that the key stays out of shell history; a terminal is refused. A value that is ' +
    'not a well-formed key is hashed all the same, with a warning on stderr.',
  arguments: [],
  options: [],
  store: false,
  exitCodes: '0 hashed, 2 usage error (no key, or a terminal)',
  async run(context) {
    const key = await readKeyFromStdin(context.io, 'hash')
    const problem = formatProblem(key, 'developer', 'accept')
    if (problem) context.io.stderr.write(`warning: not a well-formed key: ${problem.msg}\n`)
    const hash = await hashKey(key)
    context.print(hash, { hash, key_prefix: keyPrefix(key), display: displayKey(key) })
    return EXIT.ok
  },
}
