// The one connection's queue. A transaction of the store spans awaits (the audit chain hashes
// with Web Crypto): while one is open, every other statement of Keyward's waits for it, so that
// nothing reads what it has not committed and nothing writes inside it by mistake. One queue per
// connection, whichever database (better-sqlite3's own, or Drizzle's over it) Keyward runs on.

/** @internal The queue of one connection. */
export interface ConnectionQueue {
  /** Runs `fn` after everything queued, alone. */
  serial<T>(fn: () => Promise<T>): Promise<T>
  /** Runs `fn` at once when nothing is queued (the hot path), else after what is. */
  now<T>(fn: () => Promise<T>): Promise<T>
}

const queues = new WeakMap<object, ConnectionQueue>()

/** @internal The queue of `connection` (a better-sqlite3 `Database`), made on first use. */
export function queueOf(connection: object): ConnectionQueue {
  let queue = queues.get(connection)
  if (!queue) {
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
    queue = {
      serial,
      now: <T>(fn: () => Promise<T>): Promise<T> => {
        if (queued > 0) return serial(fn)
        try {
          return fn()
        } catch (error) {
          return Promise.reject(error)
        }
      },
    }
    queues.set(connection, queue)
  }
  return queue
}

/** What {@link immediateTransaction} needs of a better-sqlite3 `Database`. */
interface Connection {
  prepare(text: string): { run(): unknown }
  readonly inTransaction: boolean
}

/**
 * @internal Runs `fn` in a transaction under `BEGIN IMMEDIATE` (the database's one write lock),
 * after everything queued on the connection: committed when `fn` resolves, rolled back when it
 * throws.
 */
export function immediateTransaction<T>(connection: Connection, fn: () => Promise<T>): Promise<T> {
  return queueOf(connection).serial(async () => {
    connection.prepare('BEGIN IMMEDIATE').run()
    try {
      const result = await fn()
      connection.prepare('COMMIT').run()
      return result
    } catch (error) {
      if (connection.inTransaction) connection.prepare('ROLLBACK').run()
      throw error
    }
  })
}
