// One SqlDatabase over the client an application already runs (Drizzle, Kysely) on MySQL or
// SQLite: each client gives only how to run a statement and how to open a transaction; what
// crosses the wire, and whether Keyward's writes join the application's transaction, is here.
import type { SqlDatabase, SqlExecutor, SqlRow } from './dialect.js'

/**
 * @internal What a client library gives {@link clientDatabase}; `H` is its handle (a database,
 * a transaction).
 */
export interface ClientCalls<H> {
  /** Runs a statement that returns rows on `on` (`?` parameters, in order). */
  query(on: H, text: string, params: unknown[]): Promise<SqlRow[]>
  /** Runs a write on `on` and returns how many rows it changed. */
  run(on: H, text: string, params: unknown[]): Promise<number>
  /**
   * Opens a transaction of Keyward's own on the top-level handle; `undefined` when the handle is
   * the application's transaction already, which Keyward's writes then join.
   */
  transaction: (<T>(fn: (tx: H) => Promise<T>) => Promise<T>) | undefined
}

/**
 * Values as Keyward stores them on MySQL and SQLite, whatever the client would make of them: a
 * flag as 0 or 1, a time as milliseconds since 1970.
 *
 * @example
 * ```ts
 * statement.all(...boundParams([true, new Date(0)])) // [1, 0]
 * ```
 */
export const boundParams = (params: readonly unknown[]): unknown[] =>
  params.map((value) =>
    typeof value === 'boolean' ? (value ? 1 : 0) : value instanceof Date ? value.getTime() : value,
  )

/**
 * @internal A {@link SqlDatabase} over a client library. On a top-level handle, `transaction`
 * opens one of Keyward's own; on the application's transaction, every statement joins it and
 * `transaction(fn)` runs `fn` in it: what Keyward writes commits or rolls back with the
 * application's rows.
 */
export function clientDatabase<H>(handle: H, calls: ClientCalls<H>): SqlDatabase {
  const on = (h: H): SqlExecutor => ({
    query: <R extends SqlRow>(text: string, params: readonly unknown[] = []) =>
      calls.query(h, text, boundParams(params)) as Promise<R[]>,
    run: async (text, params = []) => ({ changes: await calls.run(h, text, boundParams(params)) }),
  })
  const direct = on(handle)
  const open = calls.transaction
  return {
    ...direct,
    transaction: open
      ? <T>(fn: (tx: SqlExecutor) => Promise<T>) => open((tx) => fn(on(tx)))
      : // The application's transaction: Keyward's statements join it, one after the other.
        <T>(fn: (tx: SqlExecutor) => Promise<T>) => fn(direct),
  }
}

/**
 * @internal The statement `text` with `?` parameters as a query builder's parts, in order: text,
 * a parameter, text, ... (Keyward's statements hold no `?` in a literal).
 */
export function statementParts<T>(
  text: string,
  params: readonly unknown[],
  raw: (text: string) => T,
  param: (value: unknown) => T,
): T[] {
  return text.split('?').flatMap((part, i) => (i === 0 ? [raw(part)] : [param(params[i - 1]), raw(part)]))
}

/** @internal What the store needs of a `Kysely` instance or transaction, named without importing Kysely. */
export interface KyselyLike {
  readonly isTransaction: boolean
  executeQuery(query: never): Promise<{ rows: unknown[]; numAffectedRows?: bigint }>
}

/**
 * @internal A {@link SqlDatabase} over Kysely: `compile` makes a raw query of a statement
 * (`CompiledQuery.raw`), `transaction` opens one of Keyward's own on the application's `db`; a
 * transaction of the application's (`trx`) is joined.
 */
export function kyselyClientDatabase<K extends KyselyLike>(
  who: string,
  db: K,
  compile: (text: string, params: unknown[]) => unknown,
  transaction: <T>(db: K, fn: (tx: K) => Promise<T>) => Promise<T>,
): SqlDatabase {
  if (typeof db?.executeQuery !== 'function' || typeof db.isTransaction !== 'boolean') {
    throw new TypeError(`${who}: expected a Kysely instance or a transaction of db.transaction().`)
  }
  const execute = (on: K, text: string, params: unknown[]) => on.executeQuery(compile(text, params) as never)
  return clientDatabase<K>(db, {
    query: async (on, text, params) => (await execute(on, text, params)).rows as SqlRow[],
    run: async (on, text, params) => Number((await execute(on, text, params)).numAffectedRows ?? 0),
    transaction: db.isTransaction ? undefined : (fn) => transaction(db, fn),
  })
}
