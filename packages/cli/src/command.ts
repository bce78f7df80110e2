import type { AuditContext, KeyOwner, Keyward, KeywardOptions } from '@keyward/core'
import { type ExitCode, usageError } from './exit.js'
import type { CliIO } from './io.js'

/** @internal One option of a command: commander's flags (`--name <name>`), help, choices, default. */
export interface OptionSpec {
  readonly flags: string
  readonly help: string
  readonly choices?: readonly string[]
  readonly default?: string
  /** The option may be given several times; its value is the list of them, in order. */
  readonly repeatable?: boolean
}

/** @internal What a command's `run` receives. */
export interface CommandContext {
  readonly io: CliIO
  /** Option values by long name without dashes (`data-dir`), as given or defaulted. */
  readonly values: Readonly<Record<string, string | boolean | readonly string[] | undefined>>
  /** The positional arguments, in the order the command declares them. */
  readonly positionals: readonly string[]
  readonly json: boolean
  /** Writes the result to stdout: `json` (one line) with `--json`, else `text`. */
  print(text: string, json: unknown): void
  /**
   * Opens the store, runs `use` with a key service over it (built with `options`), and closes
   * the store. While a slow store starts, says so on stderr (not with `--json`).
   */
  withKeyward<T>(use: (keyward: Keyward) => Promise<T>, options?: Omit<KeywardOptions, 'store'>): Promise<T>
}

/**
 * @internal One `keyward` command. A new command is one more of these in the list of
 * `run.ts`: the parser, help, `--json`, the store options and errors come with it.
 */
export interface Command {
  /** The words that name it, e.g. `keys list`: a group, then the command. */
  readonly name: string
  readonly summary: string
  /** Paragraphs of help text. */
  readonly description: string
  /** Its positional arguments, all required: [name, help]. */
  readonly arguments: readonly (readonly [string, string])[]
  readonly options: readonly OptionSpec[]
  /** Whether it works on the store (and so takes --data-dir, --pg-url, --pg-schema and --timeout). */
  readonly store: boolean
  /**
   * How long one store operation may take, in seconds, unless `--timeout` says: 3 when absent.
   * A command that writes in large transactions (`import`) gives itself more.
   */
  readonly storeTimeoutSeconds?: number
  /** What its exit codes mean, for the help. */
  readonly exitCodes: string
  run(context: CommandContext): Promise<ExitCode>
}

/** The variable that names the operator in the audit log's rows of the CLI's writes. */
export const OPERATOR_ENV = 'KEYWARD_OPERATOR'

/**
 * @internal Who the audit log names for the CLI's writes: the operator (`KEYWARD_OPERATOR`, when
 * set) and this run, by an id of its own.
 */
export function operatorContext(env: CliIO['env']): AuditContext {
  const name = env[OPERATOR_ENV]
  return {
    actor: { type: 'operator' as const, ...(name ? { name } : {}) },
    requestId: `cli-${crypto.randomUUID()}`,
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f]/

/** @internal Checks an id given on the command line (a developer, project or key id). */
export function idArgument(value: string | undefined, label: string): string {
  if (value === undefined || value === '') throw usageError(`${label} is empty.`)
  if (value.trim() !== value) throw usageError(`${label} has leading or trailing whitespace.`)
  if (UNPRINTABLE.test(value)) throw usageError(`${label} contains a control character.`)
  if (value.length > 255) throw usageError(`${label} is longer than 255 characters.`)
  return value
}

/** @internal A repeatable option's values, in order, or `undefined` when it was not given. */
export function listOption(context: CommandContext, name: string): readonly string[] | undefined {
  const value = context.values[name]
  return Array.isArray(value) ? value : undefined
}

/** @internal The owner that `--developer ID` or `--project ID` names; exactly one must be given. */
export function ownerOption(context: CommandContext): KeyOwner {
  const developer = stringOption(context, 'developer')
  const project = stringOption(context, 'project')
  if ((developer === undefined) === (project === undefined)) {
    throw usageError('Give exactly one of --developer ID or --project ID.')
  }
  return developer !== undefined
    ? { type: 'developer', id: idArgument(developer, '--developer') }
    : { type: 'project', id: idArgument(project, '--project') }
}

/** @internal A string option's value, or `undefined`. */
export function stringOption(context: CommandContext, name: string): string | undefined {
  const value = context.values[name]
  return typeof value === 'string' ? value : undefined
}
