import { parseArgs } from 'node:util'
import { createKeyward, ErrorType, isKeywardError, type Keyward } from '@keyward/core'
import { version } from '../package.json'
import type { Command, CommandContext, OptionSpec } from './command.js'
import { registerCommand } from './commands/developers.js'
import { activateCommand, listCommand, revokeCommand, rollCommand } from './commands/keys.js'
import { checkCommand, generateCommand, hashCommand } from './commands/offline.js'
import { CliError, EXIT, type ExitCode, usageError } from './exit.js'
import type { CliIO } from './io.js'
import { type OpenedStore, openStore, resolveStoreLocation, STORE_ENV } from './store.js'

const COMMANDS: readonly Command[] = [
  registerCommand,
  listCommand,
  revokeCommand,
  activateCommand,
  rollCommand,
  generateCommand,
  checkCommand,
  hashCommand,
]
const GROUPS = new Set(COMMANDS.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0]!))

const COMMON_OPTIONS: OptionSpec = { help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' } }
const STORE_OPTIONS: OptionSpec = {
  'data-dir': { type: 'string' },
  'pg-url': { type: 'string' },
  'pg-schema': { type: 'string' },
}
const STORE_HELP: readonly (readonly [string, string])[] = [
  ['--data-dir DIR', `the embedded PGlite store in DIR (default: $${STORE_ENV.dataDir})`],
  [
    '--pg-url URL',
    `the PostgreSQL store at URL (default: $${STORE_ENV.pgUrl}, which keeps a password out of history)`,
  ],
  ['--pg-schema NAME', `the SQL schema of Keyward's tables (default: $${STORE_ENV.pgSchema}, else keyward)`],
]
const COMMON_HELP: readonly (readonly [string, string])[] = [
  ['--json', 'print one JSON document instead of text (errors too, on stderr)'],
  ['-h, --help', 'show this help'],
]

function columns(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([left]) => left.length))
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`).join('\n')
}

/** Paragraphs wrapped at 80 columns. */
function wrap(text: string, width = 80): string {
  return text
    .split('\n\n')
    .map((paragraph) => {
      const lines: string[] = []
      let line = ''
      for (const word of paragraph.split(/\s+/)) {
        if (line !== '' && line.length + 1 + word.length > width) {
          lines.push(line)
          line = word
        } else {
          line = line === '' ? word : `${line} ${word}`
        }
      }
      return [...lines, line].join('\n')
    })
    .join('\n\n')
}

function commandHelp(command: Command): string {
  const options = [...command.optionHelp, ...(command.store ? STORE_HELP : []), ...COMMON_HELP]
  return [
    `Usage: keyward ${command.usage}`,
    '',
    wrap(command.description),
    '',
    'Options:',
    columns(options),
    '',
    wrap(`Exit codes: ${command.exitCodes}.`),
  ].join('\n')
}

function mainHelp(commands: readonly Command[] = COMMANDS, group?: string): string {
  return [
    `Usage: keyward ${group ? `${group} ` : ''}<command> [options]`,
    '',
    'Keyward for operators: works on the key store directly (--data-dir or --pg-url), or offline.',
    '',
    'Commands:',
    columns(commands.map((c) => [c.name, c.summary])),
    '',
    `Run 'keyward ${group ? `${group} ` : ''}<command> --help' for the options of a command.`,
    '',
    'Exit codes: 0 success, 1 the answer is no (malformed key, no such key, refused),',
    '2 usage error, 3 store unavailable, 4 unexpected error.',
    ...(group ? [] : ['', 'Other options: --version prints the version.']),
  ].join('\n')
}

/** Finds the command that `argv` names; returns the rest of the arguments, or help to print. */
function findCommand(
  argv: readonly string[],
): { command: Command; rest: string[] } | { help: string; exitCode: ExitCode; toStderr: boolean } {
  const [first, second] = argv
  if (first === undefined) return { help: mainHelp(), exitCode: EXIT.usage, toStderr: true }
  if (first === '-h' || first === '--help') return { help: mainHelp(), exitCode: EXIT.ok, toStderr: false }
  if (first === 'help') {
    const named = findCommand([...argv.slice(1), '--help'])
    return 'command' in named
      ? { help: commandHelp(named.command), exitCode: EXIT.ok, toStderr: false }
      : named
  }
  if (GROUPS.has(first)) {
    const inGroup = COMMANDS.filter((c) => c.name.startsWith(`${first} `))
    const command = inGroup.find((c) => c.name === `${first} ${second}`)
    if (command) return { command, rest: argv.slice(2) }
    const asked = second === '-h' || second === '--help'
    if (second !== undefined && !asked && !second.startsWith('-')) {
      throw usageError(`Unknown command: keyward ${first} ${second}. Run 'keyward ${first} --help'.`)
    }
    return { help: mainHelp(inGroup, first), exitCode: asked ? EXIT.ok : EXIT.usage, toStderr: !asked }
  }
  const command = COMMANDS.find((c) => c.name === first)
  if (command) return { command, rest: argv.slice(1) }
  throw usageError(`Unknown command: keyward ${first}. Run 'keyward --help'.`)
}

function parse(
  command: Command,
  args: string[],
): { values: CommandContext['values']; positionals: string[] } {
  try {
    // No option is `multiple`, so every value is a string or a boolean.
    return parseArgs({
      args,
      options: { ...command.options, ...(command.store ? STORE_OPTIONS : {}), ...COMMON_OPTIONS },
      allowPositionals: true,
      strict: true,
    }) as { values: CommandContext['values']; positionals: string[] }
  } catch (error) {
    throw usageError(`${(error as Error).message.split('\n')[0]} Run 'keyward ${command.name} --help'.`)
  }
}

/** Runs `use` with a key service over the store the options name; store failures exit 3. */
async function withStore<T>(
  io: CliIO,
  values: CommandContext['values'],
  use: (keyward: Keyward) => Promise<T>,
): Promise<T> {
  const location = resolveStoreLocation(
    values as { 'data-dir'?: string; 'pg-url'?: string; 'pg-schema'?: string },
    io.env,
  )
  let store: OpenedStore
  try {
    store = await (io.openStore ?? openStore)(location)
  } catch (error) {
    throw new CliError(
      ErrorType.storeUnavailable,
      `Cannot open the store: ${(error as Error)?.message ?? String(error)}`,
      EXIT.storeUnavailable,
    )
  }
  try {
    return await use(createKeyward({ store, trackLastUsed: false }))
  } finally {
    await store.close().catch((error: unknown) => {
      io.stderr.write(
        `warning: the store did not close cleanly: ${(error as Error)?.message ?? String(error)}\n`,
      )
    })
  }
}

/** Any failure as the CLI reports it: a stable type, a message, an exit code. */
function toCliError(error: unknown): CliError {
  if (error instanceof CliError) return error
  if (isKeywardError(error)) {
    if (error.type === ErrorType.storeUnavailable) {
      const cause = error.cause instanceof Error ? `: ${error.cause.message}` : ''
      return new CliError(error.type, `The key store is unavailable${cause}`, EXIT.storeUnavailable)
    }
    // limit_exceeded and the like: the store refused what was asked.
    return new CliError(error.type, error.msg, EXIT.failed)
  }
  return new CliError(
    ErrorType.internalError,
    `Unexpected error: ${(error as Error)?.message ?? String(error)}`,
    EXIT.internal,
  )
}

/**
 * Runs the `keyward` command line with `argv` (the arguments after `keyward`) in `io`, and
 * resolves to the exit code. It never exits the process and never throws: every failure is
 * written to `io.stderr` (as `{"detail": [...]}` with `--json`) and becomes an {@link EXIT} code.
 *
 * @example
 * ```ts
 * const code = await run(['keys', 'list', '--developer', 'dev_1', '--json'], {
 *   stdin: process.stdin,
 *   stdout: process.stdout,
 *   stderr: process.stderr,
 *   env: process.env,
 *   openStore: async () => Object.assign(new MemoryKeyStore(), { close: async () => {} }),
 * })
 * ```
 */
export async function run(argv: readonly string[], io: CliIO): Promise<ExitCode> {
  const json = argv.includes('--json')
  try {
    if (argv[0] === '--version' || argv[0] === '-v') {
      io.stdout.write(`${version}\n`)
      return EXIT.ok
    }
    const found = findCommand(argv)
    if (!('command' in found)) {
      ;(found.toStderr ? io.stderr : io.stdout).write(`${found.help}\n`)
      return found.exitCode
    }
    const { command, rest } = found
    const { values, positionals } = parse(command, rest)
    if (values.help) {
      io.stdout.write(`${commandHelp(command)}\n`)
      return EXIT.ok
    }
    if (positionals.length !== command.positionals.length) {
      const expected =
        command.positionals.length === 0 ? 'no arguments' : command.positionals.map((p) => `<${p}>`).join(' ')
      throw usageError(`keyward ${command.name} takes ${expected}. Usage: keyward ${command.usage}`)
    }
    const context: CommandContext = {
      io,
      values,
      positionals,
      json: values.json === true,
      print: (text, value) => io.stdout.write(`${values.json === true ? JSON.stringify(value) : text}\n`),
      withKeyward: (use) => withStore(io, values, use),
    }
    return await command.run(context)
  } catch (caught) {
    const error = toCliError(caught)
    io.stderr.write(
      json
        ? `${JSON.stringify({ detail: [{ loc: [], msg: error.message, type: error.type }] })}\n`
        : `keyward: ${error.message}\n`,
    )
    return error.exitCode
  }
}
