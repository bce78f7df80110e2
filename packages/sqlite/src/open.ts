// Opens a SQLite file for one process: WAL, full sync, and the database's own lock held for as
// long as it is open (`locking_mode = EXCLUSIVE`). The lock is the operating system's lock on the
// file: a second process is refused while this one lives, and the lock goes with the process
// however it ends (kill -9 included), so a restart never waits for a stale lock.
import BetterSqlite3 from 'better-sqlite3'

/**
 * The error of `createSqliteKeyStore` for a database file that another process (or another
 * store of this one) has open: a SQLite store is one writer, and its cache hears only its own
 * writes, so a second process would serve revoked keys from its cache.
 *
 * @example
 * ```ts
 * try {
 *   store = await createSqliteKeyStore({ path: './keyward.db' })
 * } catch (error) {
 *   if (error instanceof DatabaseInUseError) console.error(`${error.path} is open in another process`)
 *   throw error
 * }
 * ```
 */
export class DatabaseInUseError extends Error {
  /** The file, as it was given. */
  readonly path: string

  constructor(path: string, options?: { readonly cause?: unknown }) {
    super(
      `The SQLite database ${path} is open in another process: a Keyward SQLite store allows one ` +
        'process per file (its verification cache hears only its own writes). Stop that process first.',
      options,
    )
    this.name = 'DatabaseInUseError'
    this.path = path
  }
}

/** How a database file is opened. */
export interface OpenSqliteOptions {
  /** How long to wait for another process to let the file go. Default 3000 ms. */
  readonly waitMs?: number
}

/** @internal Opens `path` locked for this process, in WAL mode with full sync; throws {@link DatabaseInUseError} when another has it. */
export function openSqlite(path: string, options: OpenSqliteOptions = {}): BetterSqlite3.Database {
  const waitMs = options.waitMs ?? 3000
  if (!Number.isSafeInteger(waitMs) || waitMs < 0) {
    throw new TypeError(
      `createSqliteKeyStore: option \`waitMs\` must be a non-negative integer, got ${String(waitMs)}.`,
    )
  }
  const db = new BetterSqlite3(path, { timeout: waitMs })
  try {
    // Exclusive before the first access to the WAL: no shared memory, the lock kept until close.
    db.pragma('locking_mode = EXCLUSIVE')
    db.pragma('journal_mode = WAL')
    // Every commit reaches the disk before it returns: an acknowledged write survives a crash.
    db.pragma('synchronous = FULL')
    // A write takes the lock now, not at the first key written.
    db.exec('BEGIN IMMEDIATE; COMMIT')
  } catch (error) {
    db.close()
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY'))
      throw new DatabaseInUseError(path, { cause: error })
    throw error
  }
  return db
}
