import type { PostgresKeyStore, PostgresTransaction } from '@keyward/postgres'
import type { SqlKeyStore, SqlTransaction } from '@keyward/sql'
import { appDialect } from './dialects.js'

/** Keyward's store the server runs on: PostgreSQL or PGlite, or the SQL store on MySQL or SQLite. */
export type ServerStore = PostgresKeyStore | SqlKeyStore

/** The databases the server's tables live in. */
export type DialectName = 'postgres' | 'mysql' | 'sqlite'

/**
 * The few words of the server's SQL that differ between its databases. Statements are written
 * once, with `?` parameters; only the DDL and these constructs are per database.
 */
export interface AppDialect {
  readonly name: DialectName
  /** The server's table `name`: `app.name` in PostgreSQL's schema `app`, `app_name` elsewhere. */
  table(name: string): string
  /** Keyward's table of keys. */
  readonly keysTable: string
  /** What a locking read ends with (nothing on SQLite: its transaction holds the database). */
  readonly forUpdate: string
  /** The tail of an insert that leaves an existing row (by its primary key `id`) as it is. */
  readonly keepExisting: string
  /** A time as a parameter of a `created_at` column, and such a column's value as a time. */
  timeParam(at: Date): unknown
  toDate(value: unknown): Date
  /** A page's position (`created_at` to the precision the column keeps), in SQL, and as text. */
  readonly positionColumn: string
  positionText(value: unknown): string
  /** A position's text as the value of a time parameter. */
  positionValue(text: string): unknown
  /** A parameter of a type that PostgreSQL does not infer in `INSERT ... SELECT` (`?::uuid`), or `?`. */
  readonly param: { readonly uuid: string; readonly json: string; readonly time: string }
  /** The id column as text, for a keyset comparison. */
  readonly idText: string
  /** Whether `error` is a foreign key's refusal (the row it names is gone). */
  isForeignKeyViolation(error: unknown): boolean
  /** The server's tables, one idempotent statement each (run on every start). */
  readonly tables: readonly string[]
}

/** What runs the server's SQL: the store itself, or an open transaction of it. */
export interface Sql {
  readonly dialect: AppDialect
  /** Runs a statement that returns rows; `?` parameters. */
  query<R extends Record<string, unknown> = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
  ): Promise<R[]>
  /** Runs a write; returns how many rows it changed. */
  run(text: string, params?: readonly unknown[]): Promise<number>
  /** Runs a statement of the DDL. */
  execute(text: string): Promise<void>
}

/** An open transaction: the server's SQL, and the key store bound to it. */
export interface ServerTransaction extends Sql {
  readonly store: ServerStore
}

// Ids that are not UUIDs name no row, and must not reach a uuid column (which would refuse them).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Whether `value` is a UUID in its canonical text form (any case). */
export const isUuid = (value: string): boolean => UUID.test(value)

/** Whether `store` is the SQL store of MySQL or SQLite. */
export const isSqlStore = (store: ServerStore): store is SqlKeyStore => 'dialect' in store

/** PostgreSQL's `$1, $2, ...` for the `?` of a statement written once. */
const numbered = (text: string): string => {
  let n = 0
  return text.replace(/\?/g, () => `$${++n}`)
}

type Runner = Pick<PostgresTransaction, 'query'> | Pick<SqlTransaction, 'query' | 'run'>

function sqlOver(dialect: AppDialect, runner: Runner): Sql {
  if (dialect.name === 'postgres') {
    const pg = runner as Pick<PostgresTransaction, 'query'>
    return {
      dialect,
      query: (text, params = []) => pg.query(numbered(text), params),
      // The rows a write changed, counted by PostgreSQL in the same statement.
      run: async (text, params = []) => {
        const [row] = await pg.query<{ changed: number }>(
          `WITH changed AS (${numbered(text)} RETURNING 1) SELECT count(*)::int AS changed FROM changed`,
          params,
        )
        return row?.changed ?? 0
      },
      execute: async (text) => {
        await pg.query(text)
      },
    }
  }
  const sql = runner as Pick<SqlTransaction, 'query' | 'run'>
  return {
    dialect,
    query: (text, params = []) => sql.query(text, params),
    run: async (text, params = []) => (await sql.run(text, params)).changes,
    execute: async (text) => {
      await sql.run(text)
    },
  }
}

const dialects = new WeakMap<ServerStore, AppDialect>()

/** The dialect of the server's tables in `store`'s database. */
export function dialectOf(store: ServerStore): AppDialect {
  let dialect = dialects.get(store)
  if (!dialect) {
    dialect = appDialect(store)
    dialects.set(store, dialect)
  }
  return dialect
}

/**
 * The server's SQL on `store`, outside a transaction. On the SQL store a write runs in a
 * transaction of its own (the store runs reads only outside one).
 */
export function sqlOf(store: ServerStore): Sql {
  const dialect = dialectOf(store)
  if (!isSqlStore(store)) return sqlOver(dialect, store)
  return sqlOver(dialect, {
    query: (text, params) => store.query(text, params),
    run: (text, params) => store.transaction((tx) => tx.run(text, params)),
  })
}

/** Runs `fn` in one transaction of `store`: the server's SQL and the key writes commit together. */
export function transaction<T>(store: ServerStore, fn: (tx: ServerTransaction) => Promise<T>): Promise<T> {
  const dialect = dialectOf(store)
  if (isSqlStore(store)) {
    return store.transaction((tx) => fn({ ...sqlOver(dialect, tx), store: tx.store }))
  }
  return store.transaction((tx) => fn({ ...sqlOver(dialect, tx), store: tx.store }))
}
