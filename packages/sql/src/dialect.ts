// What a SQL database offers the shared store: a way to run statements, a way to run a
// transaction that serializes the writes that need it, and the few words of SQL that differ.

/** A row as a driver returns it: column names to values. */
export type SqlRow = Record<string, unknown>

/** Something statements run on: the database itself, or one open transaction. */
export interface SqlExecutor {
  /** Runs a statement that returns rows. Parameters are `?`, in order. */
  query<R extends SqlRow = SqlRow>(text: string, params?: readonly unknown[]): Promise<R[]>
  /** Runs a statement that writes and returns how many rows it changed. */
  run(text: string, params?: readonly unknown[]): Promise<{ readonly changes: number }>
  /**
   * Optional: the values of the first row of a statement, in the order of its columns, where the
   * driver reads them for less than a row object (better-sqlite3's `raw` mode: about 40% less
   * per key lookup). The key lookup uses it; without it, `query`.
   */
  firstValues?(text: string, params?: readonly unknown[]): Promise<readonly unknown[] | undefined>
}

/**
 * A database of the shared store: statements on it, and transactions.
 *
 * `transaction` must serialize what the store asks to serialize: SQLite runs the function inside
 * `BEGIN IMMEDIATE` (one writer), MySQL inside a transaction whose locking reads (`FOR UPDATE`)
 * wait for one another. The function may be run again after a deadlock: it must only touch the
 * database through `tx`.
 */
export interface SqlDatabase extends SqlExecutor {
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>
  /** Closes what the database opened itself. */
  close?(): Promise<void>
}

/** The types of Keyward's columns in one dialect's DDL. */
export interface SqlColumnTypes {
  /** A UUID as text (36 characters). */
  readonly uuid: string
  /** A SHA-256 in hex (64 characters). */
  readonly hash: string
  /** An indexed text of at most 255 characters (owner ids, prefixes, routes). */
  readonly key: string
  /** A word of at most 32 characters (a kind, an outcome, an action). */
  readonly word: string
  /** Unbounded text (names, JSON). */
  readonly text: string
  /** A 64-bit integer (times in milliseconds since 1970, balances, counts). */
  readonly bigint: string
  /** A small integer (0 or 1 for a flag). */
  readonly flag: string
}

/**
 * The words of SQL one database family says its own way, and how it classifies its errors.
 * Everything else (statements, records, the limit, leases, the audit chain) is the shared layer's.
 *
 * @example
 * ```ts
 * const sqlite: SqlDialect = { name: 'sqlite', forUpdate: '', insertIgnore: 'INSERT OR IGNORE', ... }
 * ```
 */
export interface SqlDialect {
  /** The family's name, for messages. */
  readonly name: string
  /** What a locking read ends with: ` FOR UPDATE` (MySQL, PostgreSQL), or nothing where a transaction already holds the database (SQLite). */
  readonly forUpdate: string
  /** An insert that skips a row whose key exists: `INSERT OR IGNORE` (SQLite), `INSERT IGNORE` (MySQL). */
  readonly insertIgnore: string
  /**
   * The tail of an insert that adds to a stored count instead of failing on its key: SQLite's
   * `ON CONFLICT (k) DO UPDATE SET count = count + excluded.count`, MySQL's
   * `ON DUPLICATE KEY UPDATE count = count + VALUES(count)`.
   */
  upsertAdd(conflict: readonly string[], column: string): string
  /**
   * The text at `path` (`$.a.b`) of a column of JSON text, or NULL where there is none: SQLite's
   * `json_extract(c, '$.a.b')`, MySQL's `JSON_UNQUOTE(JSON_EXTRACT(c, '$.a.b'))`.
   */
  jsonText(column: string, path: string): string
  /** Column types of the DDL. */
  readonly types: SqlColumnTypes
  /** What a `CREATE TABLE` ends with (MySQL: the engine and a binary collation). */
  readonly tableOptions: string
  /**
   * A read of one table's columns (`?`: the table's name), in order, as `name`, `type` (lower
   * case), `not_null` and `pk` (1 for a column of the primary key, else 0).
   */
  readonly columnsQuery: string
  /**
   * A read of one table's indexes other than its primary key (`?`: the table's name), as `name`,
   * `is_unique` (1 or 0) and `columns` (their names in order, separated by commas).
   */
  readonly indexesQuery: string
  /**
   * Optional: what a table's storage must be, and the catalog query (the table's name as its one
   * parameter) of the table's `engine` and `collation`, and of each text column's `name` and
   * `collation` (columns of no text left out). MySQL: InnoDB (row locks, transactions) and a
   * binary collation (ids and hashes compare byte for byte).
   */
  readonly storage?: {
    readonly engine: string
    readonly collation: string
    readonly tableQuery: string
    readonly columnsQuery: string
  }
  /** Whether `error` is a violation of a unique key. */
  isUniqueViolation(error: unknown): boolean
  /** Whether `error` says a table, index or column a migration adds is there already (MySQL has no `CREATE INDEX IF NOT EXISTS` nor `ADD COLUMN IF NOT EXISTS`). */
  isAlreadyThere(error: unknown): boolean
}

/**
 * A statement's parameter list for `IN (...)`: one `?` per value.
 *
 * @example
 * ```ts
 * await db.query(`SELECT id FROM keyward_api_keys WHERE id IN (${placeholders(ids.length)})`, ids)
 * ```
 */
export const placeholders = (count: number): string => Array.from({ length: count }, () => '?').join(', ')

/**
 * @internal Runs a write that a unique key may refuse: `false` when it did (nothing written; on
 * every dialect the transaction goes on), `true` when it was made.
 */
/** How many values one `IN (...)` list holds at most: SQLite and MySQL cap a statement's parameters. */
export const IN_LIST_CHUNK = 500

/** @internal Reads `values` a list of {@link IN_LIST_CHUNK} at a time and joins what each read gives. */
export async function inChunks<T, R>(
  values: readonly T[],
  read: (chunk: readonly T[], list: string) => Promise<readonly R[]>,
): Promise<R[]> {
  const out: R[] = []
  for (let i = 0; i < values.length; i += IN_LIST_CHUNK) {
    const chunk = values.slice(i, i + IN_LIST_CHUNK)
    out.push(...(await read(chunk, placeholders(chunk.length))))
  }
  return out
}

export async function uniqueWrite(dialect: SqlDialect, write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write()
    return true
  } catch (error) {
    if (dialect.isUniqueViolation(error)) return false
    throw error
  }
}
