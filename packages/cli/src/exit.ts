/**
 * The exit codes of `keyward`, which scripts can rely on.
 *
 * | code | meaning |
 * | --- | --- |
 * | 0 | success |
 * | 1 | the command ran and the answer is no: `check` found the key malformed, `keys revoke` found no such key, `developers register` was refused (already registered, or the limit) |
 * | 2 | usage error: unknown command or option, missing or invalid argument, a key typed at a terminal |
 * | 3 | the store cannot be opened or reached |
 * | 4 | an unexpected error |
 *
 * @example
 * ```ts
 * const code = await run(['keys', 'revoke', keyId, '--data-dir', '.keyward'])
 * if (code === EXIT.failed) console.error('no such key')
 * ```
 */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  storeUnavailable: 3,
  internal: 4,
} as const

/** One of the {@link EXIT} codes. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/**
 * @internal A failure the CLI reports and exits with: a stable `type` (the same codes as the
 * HTTP API where they exist, plus `usage_error` and `already_registered`), a message, and the
 * exit code.
 */
export class CliError extends Error {
  readonly type: string
  readonly exitCode: ExitCode

  constructor(type: string, message: string, exitCode: ExitCode) {
    super(message)
    this.name = 'CliError'
    this.type = type
    this.exitCode = exitCode
  }
}

/** @internal A usage error (exit 2). */
export function usageError(message: string): CliError {
  return new CliError('usage_error', message, EXIT.usage)
}
