// Running one store operation on a node-postgres connection, bounded by a deadline.
// Callbacks rather than promises inside: this is the path of every key lookup.
import type pg from 'pg'
import { QueryTimeoutError, type SqlRow } from './driver.js'

type Done<T> = (error: unknown, value?: T) => void

/** A connection checked out for one operation. */
interface Lease {
  readonly client: pg.ClientBase
  /**
   * Whether an operation that timed out gives the connection up at once (a pool's: it is
   * closed and replaced) or keeps it until the operation ends (a lone client: the next
   * operation must not start in the middle of this one).
   */
  readonly closeOnTimeout: boolean
  /** Gives the connection back; with `broken`, a pool closes it instead of reusing it. */
  release(broken?: Error): void
}

/** Checks out a connection for one operation. */
export type Acquire = (done: Done<Lease>) => void

/** Runs one statement on the operation's connection. */
export type Query = (
  text: string,
  values: readonly unknown[] | undefined,
  name: string | undefined,
  done: Done<SqlRow[]>,
) => void

const isPool = (db: pg.Pool | pg.ClientBase): db is pg.Pool => typeof (db as pg.Pool).totalCount === 'number'

/** @internal How operations get a connection: from a pool, or by turns on one client. */
export function leasesOf(db: pg.Pool | pg.ClientBase): Acquire {
  if (isPool(db)) {
    return (done) =>
      db.connect((error, client) => {
        if (error || !client) return done(error)
        done(undefined, { client, closeOnTimeout: true, release: (broken) => client.release(broken) })
      })
  }
  // One connection runs one operation at a time: a lookup must never run inside another
  // caller's open transaction. Operations take turns, in order.
  let tail: Promise<void> = Promise.resolve()
  return (done) => {
    const previous = tail
    let release!: () => void
    tail = new Promise<void>((resolve) => {
      release = resolve
    })
    previous.then(() => done(undefined, { client: db, closeOnTimeout: false, release }))
  }
}

// Errors the server reports carry a severity; after any other error (a lost connection,
// a reset, a timeout) the connection is not reused.
const reportedByServer = (error: unknown) => typeof (error as { severity?: unknown })?.severity === 'string'

/**
 * @internal Runs `use` on a leased connection, bounded by `timeoutMs` from the start
 * (waiting for the connection included). When the time passes first, the caller gets a
 * {@link QueryTimeoutError} at once, the operation's later statements fail, and a pool's
 * connection is closed.
 */
export function leased<T>(
  acquire: Acquire,
  timeoutMs: number,
  use: (query: Query, done: Done<T>) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let lease: Lease | undefined
    let broken: Error | undefined
    let expired: QueryTimeoutError | undefined
    const onError = (error: Error) => {
      broken ??= error
    }
    const release = () => {
      const current = lease
      if (!current) return
      lease = undefined
      current.client.removeListener('error', onError)
      current.release(broken)
    }
    const timer = setTimeout(() => {
      expired = new QueryTimeoutError(timeoutMs)
      reject(expired)
      if (lease?.closeOnTimeout) {
        broken ??= expired
        release()
      }
    }, timeoutMs)
    const query: Query = (text, values, name, done) => {
      if (!lease || broken || expired)
        return done(expired ?? broken ?? new Error('The connection was released.'))
      lease.client.query({ text, values: values as unknown[] | undefined, name }, (error, result) => {
        if (error && !reportedByServer(error)) broken ??= error
        done(error, result?.rows)
      })
    }
    acquire((error, acquired) => {
      if (error || !acquired) {
        clearTimeout(timer)
        return reject(error)
      }
      lease = acquired
      // Too late: the caller has its answer, and the connection is fine.
      if (expired) return release()
      acquired.client.on('error', onError)
      use(query, (failure, value) => {
        clearTimeout(timer)
        release()
        if (failure) reject(failure)
        else resolve(value as T)
      })
    })
  })
}
