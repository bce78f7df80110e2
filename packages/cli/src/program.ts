import { CommanderError, Option, Command as Parser } from 'commander'
import { version } from '../package.json'
import type { Command, CommandContext, OptionSpec } from './command.js'
import { EXIT, type ExitCode, usageError } from './exit.js'
import type { CliIO } from './io.js'
import { STORE_ENV } from './store.js'

const STORE_OPTIONS: readonly OptionSpec[] = [
  { flags: '--data-dir <dir>', help: `the embedded PGlite store in DIR (default: $${STORE_ENV.dataDir})` },
  {
    flags: '--pg-url <url>',
    help: `the PostgreSQL store at URL (default: $${STORE_ENV.pgUrl}, which keeps a password out of history)`,
  },
  {
    flags: '--pg-schema <name>',
    help: `the SQL schema of Keyward's tables (default: $${STORE_ENV.pgSchema}, else keyward)`,
  },
]
/** `--timeout`, with the command's own default. */
const timeoutOption = (seconds = 3): OptionSpec => ({
  flags: '--timeout <seconds>',
  help: `how long one store operation may take before the command fails (default ${seconds})`,
})
const JSON_OPTION: OptionSpec = {
  flags: '--json',
  help: 'print one JSON document instead of text (errors too, on stderr)',
}
const EXIT_CODES =
  'Exit codes: 0 success, 1 the answer is no (malformed key, no such key, refused),\n' +
  '2 usage error, 3 store unavailable, 4 unexpected error.'

/** @internal The groups of commands, with the words of their help. */
const GROUPS: Readonly<Record<string, string>> = {
  developers: 'Developers: register, list',
  keys: 'Keys: list, revoke, activate, roll, expire',
  identities: "Identities: a project's customers, whose keys share limits and credits",
  schema: "Schema: Keyward's SQL migrations",
  webhooks: 'Webhooks: endpoints, their secrets, the delivery log, redelivery and test events',
}

/** What the command line asks for: a command to run, or an exit code (help or version was printed). */
export type Parsed =
  | { readonly command: Command; readonly values: CommandContext['values']; readonly positionals: string[] }
  | { readonly exitCode: ExitCode }

/** A parser's message as one line of ours: `error: unknown option '--x'` -> `Unknown option '--x'.` */
function oneLine(message: string, path: string): string {
  const text = message
    .replace(/^error: /, '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ')
  const sentence = `${text.charAt(0).toUpperCase()}${text.slice(1)}`
  return `${/[.?)]$/.test(sentence) ? sentence : `${sentence}.`} Run 'keyward ${path}--help'.`
}

function addOption(parser: Parser, spec: OptionSpec): void {
  const option = new Option(spec.flags, spec.help)
  if (spec.choices) option.choices(spec.choices)
  if (spec.default !== undefined) option.default(spec.default)
  if (spec.repeatable) option.argParser((value: string, previous?: string[]) => [...(previous ?? []), value])
  parser.addOption(option)
}

/**
 * Parses `argv` with commander over `commands`: help, usage and errors are commander's, made to
 * print into `io` and to throw instead of exiting. Every parser error becomes one usage line.
 */
export function parseCommandLine(argv: readonly string[], io: CliIO, commands: readonly Command[]): Parsed {
  let parsed: Parsed | undefined
  const program = new Parser('keyward')
  const configure = (parser: Parser, path: string) =>
    parser
      .configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
        outputError: () => {},
      })
      .configureHelp({ helpWidth: 100, sortSubcommands: false })
      .showSuggestionAfterError()
      .helpCommand(false)
      .helpOption('-h, --help', 'show this help')
      .exitOverride((error) => {
        if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') {
          throw new CommanderError(EXIT.ok, error.code, '')
        }
        // A group without its command: commander printed the group's help on stderr.
        if (error.code === 'commander.help') throw new CommanderError(EXIT.usage, error.code, '')
        throw usageError(oneLine(error.message, path))
      })
  configure(program, '')
    .description(
      'Keyward for operators: works on the key store directly (--data-dir or --pg-url), or offline.',
    )
    .version(version, '-v, --version', 'print the version')
    // `keyward --json keys list ...` as well as `keyward keys list ... --json`.
    .addOption(new Option('--json').hideHelp())
    .addHelpText('after', `\nRun 'keyward <command> --help' for a command's options.\n\n${EXIT_CODES}`)
  const groups = new Map<string, Parser>()
  for (const command of commands) {
    const words = command.name.split(' ')
    let parent = program
    if (words.length === 2) {
      const group = words[0]!
      parent =
        groups.get(group) ??
        configure(program.command(group), `${group} `)
          .description(`${GROUPS[group] ?? group}`)
          .addHelpText('after', `\n${EXIT_CODES}`)
      groups.set(group, parent)
    }
    const parser = configure(parent.command(words.at(-1)!), `${command.name} `)
      .summary(command.summary)
      .description(command.description)
      .addHelpText('after', `\nExit codes: ${command.exitCodes}.`)
    for (const [name, help] of command.arguments) parser.argument(`<${name}>`, help)
    const store = command.store ? [...STORE_OPTIONS, timeoutOption(command.storeTimeoutSeconds)] : []
    for (const spec of [...command.options, ...store, JSON_OPTION]) {
      addOption(parser, spec)
    }
    parser.action(() => {
      const opts = parser.opts()
      const values: Record<string, string | boolean | readonly string[] | undefined> = {}
      for (const option of parser.options) values[option.long!.slice(2)] = opts[option.attributeName()]
      parsed = { command, values, positionals: parser.processedArgs as string[] }
    })
  }
  try {
    // `keyward help keys list` is `keyward keys list --help`.
    program.parse(argv[0] === 'help' ? [...argv.slice(1), '--help'] : [...argv], { from: 'user' })
  } catch (error) {
    if (error instanceof CommanderError) return { exitCode: error.exitCode as ExitCode }
    throw error
  }
  // Commander shows the help (and throws) when no command is named: `parsed` is set otherwise.
  return parsed ?? { exitCode: EXIT.usage }
}
