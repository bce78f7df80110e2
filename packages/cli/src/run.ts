import { createKeyward, ErrorType, isKeywardError, type Keyward, type KeywardOptions } from '@keyward/core'
import { type Command, type CommandContext, operatorContext } from './command.js'
import { auditExportCommand, auditListCommand, auditVerifyCommand } from './commands/audit.js'
import { creditsCommand, identityCreditsCommand } from './commands/credits.js'
import { developersListCommand, registerCommand } from './commands/developers.js'
import {
  identitiesCreateCommand,
  identitiesDeleteCommand,
  identitiesGetCommand,
  identitiesKeysCommand,
  identitiesListCommand,
  identitiesUpdateCommand,
} from './commands/identities.js'
import { importCommand } from './commands/import.js'
import { activateCommand, expireCommand, listCommand, revokeCommand, rollCommand } from './commands/keys.js'
import { checkCommand, generateCommand, hashCommand } from './commands/offline.js'
import { createCommand, updateCommand } from './commands/policies.js'
import {
  rolesCreateCommand,
  rolesDeleteCommand,
  rolesListCommand,
  rolesShowCommand,
  rolesUpdateCommand,
} from './commands/roles.js'
import {
  doctorCommand,
  schemaDrizzleCommand,
  schemaPrismaCommand,
  schemaSqlCommand,
} from './commands/schema.js'
import { usageCommand } from './commands/usage.js'
import { WEBHOOK_COMMANDS } from './commands/webhooks.js'
import { CliError, EXIT, type ExitCode } from './exit.js'
import type { CliIO } from './io.js'
import { parseCommandLine } from './program.js'
import { openWithNotice } from './progress.js'
import { resolveStoreLocation } from './store.js'

const COMMANDS: readonly Command[] = [
  registerCommand,
  developersListCommand,
  listCommand,
  createCommand,
  updateCommand,
  creditsCommand,
  identityCreditsCommand,
  revokeCommand,
  activateCommand,
  rollCommand,
  expireCommand,
  identitiesCreateCommand,
  identitiesListCommand,
  identitiesGetCommand,
  identitiesUpdateCommand,
  identitiesDeleteCommand,
  identitiesKeysCommand,
  rolesCreateCommand,
  rolesListCommand,
  rolesShowCommand,
  rolesUpdateCommand,
  rolesDeleteCommand,
  auditListCommand,
  auditVerifyCommand,
  auditExportCommand,
  usageCommand,
  ...WEBHOOK_COMMANDS,
  importCommand,
  generateCommand,
  checkCommand,
  hashCommand,
  schemaSqlCommand,
  schemaDrizzleCommand,
  schemaPrismaCommand,
  doctorCommand,
]

/** Runs `use` with a key service over the store the options name; store failures exit 3. */
async function withStore<T>(
  io: CliIO,
  context: Pick<CommandContext, 'values' | 'json'> & { readonly storeTimeoutSeconds?: number | undefined },
  use: (keyward: Keyward) => Promise<T>,
  options: Omit<KeywardOptions, 'store'> = {},
): Promise<T> {
  const { storeTimeoutSeconds } = context
  const location = resolveStoreLocation(
    context.values as { 'data-dir'?: string; 'pg-url'?: string; 'pg-schema'?: string; timeout?: string },
    io.env,
    storeTimeoutSeconds,
  )
  const store = await openWithNotice(io, location, { quiet: context.json })
  try {
    // Operators verify no keys: nothing to record as used.
    const auditContext = operatorContext(io.env)
    return await use(createKeyward({ trackLastUsed: false, auditContext, ...options, store }))
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
 * written to `io.stderr` as one line (as `{"detail": [...]}` with `--json`) and becomes an
 * {@link EXIT} code.
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
    const parsed = parseCommandLine(argv, io, COMMANDS)
    if ('exitCode' in parsed) return parsed.exitCode
    const { command, values, positionals } = parsed
    const context: CommandContext = {
      io,
      values,
      positionals,
      json,
      print: (text, value) => io.stdout.write(`${json ? JSON.stringify(value) : text}\n`),
      withKeyward: (use, options) =>
        withStore(io, { values, json, storeTimeoutSeconds: command.storeTimeoutSeconds }, use, options),
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
