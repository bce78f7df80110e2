import type { ParseArgsConfig } from 'node:util'
import type { Keyward } from '@keyward/core'
import { type ExitCode, usageError } from './exit.js'
import type { CliIO } from './io.js'

/** @internal The options of one command, in `node:util` `parseArgs` form. */
export type OptionSpec = NonNullable<ParseArgsConfig['options']>

/** @internal What a command's `run` receives. */
export interface CommandContext {
  readonly io: CliIO
  readonly values: Readonly<Record<string, string | boolean | undefined>>
  readonly positionals: readonly string[]
  readonly json: boolean
  /** Writes the result to stdout: `json` (one line) with `--json`, else `text`. */
  print(text: string, json: unknown): void
  /** Opens the store, runs `use` with a key service over it, and closes the store. */
  withKeyward<T>(use: (keyward: Keyward) => Promise<T>): Promise<T>
}

/** @internal One `keyward` command. */
export interface Command {
  /** The words that name it, e.g. `keys list`. */
  readonly name: string
  readonly summary: string
  /** Everything after `keyward `, e.g. `keys revoke <key-id> [options]`. */
  readonly usage: string
  /** Paragraphs of help text. */
  readonly description: string
  readonly options: OptionSpec
  /** Help lines of the command's own options: [flag, meaning]. */
  readonly optionHelp: readonly (readonly [string, string])[]
  /** Names of its positional arguments, all required. */
  readonly positionals: readonly string[]
  /** Whether it works on the store (and so takes --data-dir and --pg-url). */
  readonly store: boolean
  /** What its exit codes mean, for the help. */
  readonly exitCodes: string
  run(context: CommandContext): Promise<ExitCode>
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

/** @internal A string option's value, or `undefined`. */
export function stringOption(context: CommandContext, name: string): string | undefined {
  const value = context.values[name]
  return typeof value === 'string' ? value : undefined
}

/** @internal A string option limited to some values, with its default. */
export function choiceOption<T extends string>(
  context: CommandContext,
  name: string,
  choices: readonly T[],
  fallback: T,
): T {
  const value = stringOption(context, name)
  if (value === undefined) return fallback
  if (!choices.includes(value as T)) {
    throw usageError(`--${name} must be one of ${choices.join(', ')}.`)
  }
  return value as T
}
