// better-sqlite3 is synchronous: a statement runs to its end before the next line. The one
// connection still needs a queue (`queue.ts`), because a transaction of the store spans awaits.
import { boundParams as bound, type SqlDatabase, type SqlExecutor, type SqlRow } from '@keyward/sql'
import type BetterSqlite3 from 'better-sqlite3'
import { immediateTransaction, queueOf } from './queue.js'

type Statement = BetterSqlite3.Statement<unknown[], unknown>

/** The most prepared statements kept; past it the cache starts again. */
const STATEMENT_CACHE = 500

/** Statements prepared once by `make`, by their text; past {@link STATEMENT_CACHE} the cache starts again. */
function statementCache(make: (text: string) => Statement): (text: string) => Statement {
  const statements = new Map<string, Statement>()
  return (text) => {
    let statement = statements.get(text)
    if (!statement) {
      if (statements.size >= STATEMENT_CACHE) statements.clear()
      statement = make(text)
      statements.set(text, statement)
    }
    return statement
  }
}

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
  const prepare = statementCache((text) => db.prepare(text))
  // Statements that give a row as an array of its values (better-sqlite3's `raw` mode).
  const prepareRaw = statementCache((text) => db.prepare(text).raw(true))
  const direct: SqlExecutor = {
    // A statement that returns no rows (`CREATE TABLE`, an `INSERT` without `RETURNING`) runs
    // and gives none: better-sqlite3's `all()` refuses it.
    query: <R extends SqlRow>(text: string, params: readonly unknown[] = []) => {
      const statement = prepare(text)
      if (statement.reader) return Promise.resolve(statement.all(...bound(params)) as R[])
      statement.run(...bound(params))
      return Promise.resolve([] as R[])
    },
    run: (text, params = []) => Promise.resolve({ changes: prepare(text).run(...bound(params)).changes }),
    firstValues: (text: string, params: readonly unknown[] = []) =>
      Promise.resolve(prepareRaw(text).get(...bound(params)) as unknown[] | undefined),
  }
  const { serial, now } = queueOf(db)
  return {
    query: (text, params) => now(() => direct.query(text, params)),
    firstValues: (text, params) => now(() => direct.firstValues!(text, params)),
    run: (text, params) => now(() => direct.run(text, params)),
    transaction: (fn) => immediateTransaction(db, () => fn(direct)),
    close: async () => {
      await serial(async () => {
        if (options.close) options.close()
        else db.close()
      })
    },
  }
}
