// better-sqlite3 is synchronous: a statement runs to its end before the next line. The one
// connection still needs a queue, because a transaction of the store spans awaits (the audit
// chain hashes with Web Crypto): while one is open, every other statement waits for it, so that
// nothing reads what it has not committed and nothing writes inside it by mistake.
import type { SqlDatabase, SqlExecutor, SqlRow } from '@keyward/sql'
import type BetterSqlite3 from 'better-sqlite3'

type Statement = BetterSqlite3.Statement<unknown[], unknown>

// Values as SQLite stores them: a flag as 0 or 1, a time as milliseconds.
const bound = (params: readonly unknown[]): unknown[] =>
  params.map((value) =>
    typeof value === 'boolean' ? (value ? 1 : 0) : value instanceof Date ? value.getTime() : value,
  )

/** The most prepared statements kept; past it the cache starts again. */
const STATEMENT_CACHE = 500

/**
 * A `SqlDatabase` (of `@keyward/sql`) on one better-sqlite3 connection: statements prepared once, transactions
 * under `BEGIN IMMEDIATE`, one at a time, and every other statement queued behind an open one.
 *
 * @example
 * ```ts
 * import Database from 'better-sqlite3'
 * const store = new SqlKeyStore(sqliteDatabase(new Database('keyward.db')), sqliteDialect)
 * ```
 */
export function sqliteDatabase(
  db: BetterSqlite3.Database,
  options: { readonly close?: () => void } = {},
): SqlDatabase {
  if (typeof db?.prepare !== 'function')
    throw new TypeError('sqliteDatabase: expected a better-sqlite3 Database.')
  const statements = new Map<string, Statement>()
  const prepare = (text: string): Statement => {
    let statement = statements.get(text)
    if (!statement) {
      if (statements.size >= STATEMENT_CACHE) statements.clear()
      statement = db.prepare(text)
      statements.set(text, statement)
    }
    return statement
  }
  const direct: SqlExecutor = {
    query: <R extends SqlRow>(text: string, params: readonly unknown[] = []) =>
      Promise.resolve(prepare(text).all(...bound(params)) as R[]),
    run: (text, params = []) => Promise.resolve({ changes: prepare(text).run(...bound(params)).changes }),
  }
  let queued = 0
  let tail: Promise<unknown> = Promise.resolve()
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    queued++
    const result = tail.then(fn).finally(() => {
      queued--
    })
    tail = result.catch(() => undefined)
    return result
  }
  // Outside a transaction a statement runs at once when nothing is queued (the hot path), else after it.
  const now = <T>(fn: () => Promise<T>): Promise<T> => {
    if (queued > 0) return serial(fn)
    try {
      return fn()
    } catch (error) {
      return Promise.reject(error)
    }
  }
  return {
    query: (text, params) => now(() => direct.query(text, params)),
    run: (text, params) => now(() => direct.run(text, params)),
    transaction: (fn) =>
      serial(async () => {
        db.prepare('BEGIN IMMEDIATE').run()
        try {
          const result = await fn(direct)
          db.prepare('COMMIT').run()
          return result
        } catch (error) {
          if (db.inTransaction) db.prepare('ROLLBACK').run()
          throw error
        }
      }),
    close: async () => {
      await serial(async () => {
        if (options.close) options.close()
        else db.close()
      })
    },
  }
}
