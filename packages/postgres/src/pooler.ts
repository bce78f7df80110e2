// What a connection pooler in front of PostgreSQL (PgBouncer, Supavisor, RDS Proxy, ...) refuses,
// told in words that name the cause and the option that avoids it.

/**
 * An error of a connection pooler in front of PostgreSQL, or of PostgreSQL behind a transaction
 * pooler, that a setting of the store avoids: the message names the setting. The pooler's
 * own error is the `cause`; its SQLSTATE stays in `code`. The key service reports it through
 * `onEvent` (`store.error`) and answers 503 `store_unavailable`; `createPgKeyStore` throws it.
 *
 * - `startup_parameter`: the pooler refused a startup parameter (PgBouncer: "unsupported
 *   startup parameter"). Keyward sends none of its own: the parameter comes from the pool's
 *   settings (`poolConfig`, the connection string's `options`, the `PG*` environment).
 * - `prepared_statement`: a named prepared statement met a server connection that does not
 *   have it, or already has it: the connection goes through a transaction pooler. Set
 *   `preparedStatements: false`.
 *
 * @example
 * ```ts
 * import { PoolerError } from '@keyward/postgres'
 *
 * const keyward = createKeyward({
 *   store,
 *   onEvent: (event) => {
 *     if (event.type === 'store.error' && event.error instanceof PoolerError) alert(event.error.message)
 *   },
 * })
 * ```
 */
export class PoolerError extends Error {
  /** What was refused. */
  readonly reason: 'startup_parameter' | 'prepared_statement'
  /** The SQLSTATE of the refusal (`08P01`, `42P05`, `26000`). */
  readonly code: string | undefined

  constructor(reason: PoolerError['reason'], message: string, cause: unknown) {
    super(message, { cause })
    this.name = 'PoolerError'
    this.reason = reason
    this.code = (cause as { code?: string }).code
  }
}

const STARTUP_PARAMETER = /unsupported startup parameter: ?([\w.]+)/i

/**
 * @internal The error a store operation rejects with: `error` itself, or a {@link PoolerError}
 * that explains it. `statement` is the name of the prepared statement the query ran, if any.
 */
export function explainPoolerError(error: unknown, statement?: string): unknown {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (typeof message !== 'string') return error
  const parameter = code === '08P01' ? STARTUP_PARAMETER.exec(message)?.[1] : undefined
  if (parameter) {
    return new PoolerError(
      'startup_parameter',
      `The connection pooler refused the startup parameter \`${parameter}\` (${message}). Keyward sends ` +
        'no startup parameters and bounds each transaction with SET LOCAL statement_timeout: remove ' +
        `\`${parameter}\` from the pool's settings (poolConfig, the connection string's options, PG* ` +
        "environment variables), or add it to the pooler's ignore_startup_parameters.",
      error,
    )
  }
  if (statement !== undefined && (code === '42P05' || code === '26000')) {
    return new PoolerError(
      'prepared_statement',
      `PostgreSQL refused the prepared statement "${statement}" (${message}): the connection goes ` +
        'through a transaction pooler (PgBouncer in transaction mode, ...), which hands each ' +
        "transaction another server connection. Set the store's option `preparedStatements: false`.",
      error,
    )
  }
  return error
}
