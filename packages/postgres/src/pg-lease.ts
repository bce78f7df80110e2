// Running one store operation on a node-postgres connection, bounded by a deadline, so that a
// caller told that its operation timed out never finds it done later.
// Callbacks rather than promises inside: this is the path of every key lookup.
import type pg from 'pg'
import { QueryTimeoutError, type SqlRow } from './driver.js'
import { cancelStatement } from './pg-cancel.js'
import { runStatement } from './pg-statement.js'

type Done<T> = (error: unknown, value?: T) => void

/** The statements that open and end a transaction, as the driver sends them. */
export const BEGIN = 'BEGIN ISOLATION LEVEL READ COMMITTED'
export const COMMIT = 'COMMIT'
export const ROLLBACK = 'ROLLBACK'

/**
 * How long, after its deadline, an operation waits for what is already under way: the answer
 * to a COMMIT on its way, a cancelled statement, the ROLLBACK. Past it the connection is
 * given up.
 */
export const SETTLE_MS = 1000

/** A connection checked out for one operation. */
interface Lease {
  readonly client: pg.ClientBase
  /** Gives the connection back; with `broken`, it is never used again. */
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

/**
 * The error of every operation on a lone `pg` Client that the driver gave up: its connection
 * failed, or it did not finish a timed-out operation (cancel, ROLLBACK) in time. The driver
 * closed it, so the server rolled back whatever it had open. A `Pool` never gives up: it
 * replaces the connection.
 *
 * @example
 * ```ts
 * const keyward = createKeyward({
 *   store,
 *   onEvent: (event) => {
 *     if (event.type === 'store.error' && event.error instanceof ClientGivenUpError) reconnect()
 *   },
 * })
 * ```
 */
export class ClientGivenUpError extends Error {
  constructor(cause: unknown) {
    super(
      'pgDriver: the pg Client was closed after its connection failed or stopped answering ' +
        `(${cause instanceof Error ? cause.message : String(cause)}). Build the driver on a new Client, ` +
        'or on a Pool, which replaces its connections.',
      { cause },
    )
    this.name = 'ClientGivenUpError'
  }
}

/** @internal How operations get a connection: from a pool, or by turns on one client. */
export function leasesOf(db: pg.Pool | pg.ClientBase): Acquire {
  if (isPool(db)) {
    return (done) =>
      db.connect((error, client) => {
        if (error || !client) return done(error)
        // A broken connection is closed by the pool and replaced on demand.
        done(undefined, { client, release: (broken) => client.release(broken) })
      })
  }
  // One connection runs one operation at a time: a lookup must never run inside another
  // caller's open transaction. Operations take turns, in order. A connection that broke, or
  // that could not be brought back to no open transaction after a timeout, is closed (so the
  // server rolls back what it had open) and every later operation gets a ClientGivenUpError.
  let tail: Promise<void> = Promise.resolve()
  let givenUp: ClientGivenUpError | undefined
  return (done) => {
    const previous = tail
    let next!: () => void
    tail = new Promise<void>((resolve) => {
      next = resolve
    })
    previous.then(() => {
      if (givenUp) {
        next()
        return done(givenUp)
      }
      done(undefined, {
        client: db,
        release: (broken) => {
          if (broken && !givenUp) {
            givenUp = new ClientGivenUpError(broken)
            ;(db as pg.Client).end?.().catch(() => {})
          }
          next()
        },
      })
    })
  }
}

// Errors of a statement that the server reports and survives (severity ERROR) leave the
// connection usable; after any other (a lost connection, FATAL, a timeout) it is not reused.
const survivable = (error: unknown) => (error as { severity?: unknown })?.severity === 'ERROR'
const cancelled = (error: unknown) => (error as { code?: unknown })?.code === '57014'

/**
 * @internal Runs `use` on a leased connection, bounded by `timeoutMs` from the start
 * (waiting for the connection included). When the time passes:
 * - before the operation has a connection: it rejects, and never runs;
 * - inside a transaction, before its COMMIT is sent: it rejects at once and sends nothing
 *   more of the operation; the statement under way is cancelled, the transaction rolled back,
 *   and the connection given back (or closed, if that takes more than {@link SETTLE_MS});
 * - while a statement that commits by itself is under way (the COMMIT, or a single statement
 *   outside a transaction; the latter is cancelled): it waits up to {@link SETTLE_MS} for the
 *   answer and settles with it (a cancelled statement as a {@link QueryTimeoutError}); with no
 *   answer, it closes the connection and rejects with outcome `'unknown'`.
 */
export function leased<T>(
  acquire: Acquire,
  timeoutMs: number,
  use: (query: Query, done: Done<T>) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const settleMs = Math.min(timeoutMs, SETTLE_MS)
    let lease: Lease | undefined
    let settled = false
    let expired = false
    let cleaningUp = false
    let open = false
    let committed = false
    let running: { readonly commits: boolean } | undefined
    let broken: Error | undefined
    let giveUp: ReturnType<typeof setTimeout> | undefined
    let cancelling: Promise<void> | undefined
    const settle = (error: unknown, value?: T) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (error) reject(error)
      else resolve(value as T)
    }
    const onError = (error: Error) => {
      broken ??= error
    }
    const release = (failure?: Error) => {
      const current = lease
      if (!current) return
      lease = undefined
      clearTimeout(giveUp)
      current.client.removeListener('error', onError)
      const give = () => current.release(failure ?? broken)
      // Not before the server has taken a cancel request, which must not reach the next operation.
      if (cancelling) void cancelling.then(give)
      else give()
    }
    const expire = () => {
      expired = true
      const current = lease
      // Committed: its result is on its way to the caller.
      if (committed) return
      if (!current) return settle(new QueryTimeoutError(timeoutMs))
      if (running?.commits) {
        // Its answer is the outcome: wait for it. A COMMIT is left alone; a single statement
        // is cancelled (it ends with 57014 and no effect, or with its own result).
        if (!open) cancelling = cancelStatement(current.client, settleMs)
        giveUp = setTimeout(() => {
          const unknown = new QueryTimeoutError(timeoutMs, 'unknown')
          settle(unknown)
          release(unknown)
        }, settleMs)
        return
      }
      // No COMMIT will be sent: the caller can be told now.
      settle(new QueryTimeoutError(timeoutMs))
      cleaningUp = true
      if (!open) return release()
      if (running) cancelling = cancelStatement(current.client, settleMs)
      giveUp = setTimeout(() => release(new QueryTimeoutError(timeoutMs)), settleMs)
      // node-postgres sends it once the statement under way has answered.
      current.client.query(ROLLBACK, (error: Error | null) => {
        release(error && !survivable(error) ? error : undefined)
      })
    }
    const timer = setTimeout(expire, timeoutMs)
    const query: Query = (text, values, name, done) => {
      if (!lease || broken || expired) {
        return done(
          expired ? new QueryTimeoutError(timeoutMs) : (broken ?? new Error('The connection was released.')),
        )
      }
      if (text.startsWith('BEGIN')) open = true
      const commits = !open || text === COMMIT
      running = { commits }
      runStatement(lease.client, text, values, name, (error, rows) => {
        running = undefined
        if (text === COMMIT || text === ROLLBACK) open = false
        if (text === COMMIT && !error) committed = true
        if (error && !survivable(error)) broken ??= error
        if (expired && cancelled(error)) return done(new QueryTimeoutError(timeoutMs))
        // The connection died under a write that commits by itself: it may have landed.
        if (expired && commits && error && !survivable(error)) {
          return done(new QueryTimeoutError(timeoutMs, 'unknown'))
        }
        done(error, rows)
      })
    }
    acquire((error, acquired) => {
      if (error || !acquired) return settle(error ?? new Error('No connection.'))
      // Too late: the caller has its answer, and the connection is untouched.
      if (expired) return acquired.release()
      lease = acquired
      acquired.client.on('error', onError)
      use(query, (failure, value) => {
        settle(failure, value)
        if (!cleaningUp) release()
      })
    })
  })
}
