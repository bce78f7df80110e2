// One process per PGlite data directory. PGlite lets a second database open a directory that
// one has open (two corrupt it), and the `postmaster.pid` it writes names no process (its pid
// is -42), so it cannot tell a live owner from a crashed one. The directory is locked with
// proper-lockfile instead: an atomic `mkdir` of `keyward.lock`, whose mtime its owner refreshes
// while it lives, removed on close. Inside it, `owner.json` names the owner (pid, host, start
// time), so that a lock left by a process that ended without closing (kill -9, a crash, a signal
// it did not handle) is taken over at once, and a live owner is named.

/** A lock nobody refreshed for this long is stale, unless its owner is seen alive on this host. */
const STALE_MS = 10_000
/** How often a waiting process looks again at a lock held by a live owner. */
const RETRY_MS = 100
const LOCK = 'keyward.lock'
const OWNER = 'owner.json'

/**
 * The error of `createPGliteKeyStore` for a data directory that another live process (or this
 * one) has open: PGlite lets a second database open it too, and two corrupt it. A directory
 * left locked by a process that is gone (killed, crashed) is not refused: it is taken over.
 *
 * @example
 * ```ts
 * try {
 *   store = await createPGliteKeyStore({ dataDir: './.keyward' })
 * } catch (error) {
 *   if (error instanceof DataDirInUseError) console.error(`${error.dataDir} is used by ${error.pid}`)
 *   throw error
 * }
 * ```
 */
export class DataDirInUseError extends Error {
  /** The directory, as it was given. */
  readonly dataDir: string
  /** The process that has it open, when known. */
  readonly pid: number | undefined

  constructor(dataDir: string, owner?: { readonly pid: number; readonly host?: string | undefined }) {
    const who = owner ? `process ${owner.pid}${owner.host ? ` on ${owner.host}` : ''}` : 'another process'
    super(
      `The PGlite data directory ${dataDir} is open in ${who}: PGlite allows one process per ` +
        'directory, and two corrupt it. Stop that process first.',
    )
    this.name = 'DataDirInUseError'
    this.dataDir = dataDir
    this.pid = owner?.pid
  }
}

/** What {@link openLocked} needs of a database: PGlite's `close` and `closed`. */
export interface ClosableDatabase {
  close(): Promise<void>
  readonly closed: boolean
}

const DEFAULT_WAIT_MS = 3000

/**
 * Opens a database on `dataDir` under its lock (see {@link lockDataDir}); `close()` closes the
 * database, then lets the lock go. If the lock is lost while open, the database is closed, so
 * that every later operation fails closed rather than writing beside another process.
 */
export async function openLocked<D extends ClosableDatabase>(
  dataDir: string | undefined,
  waitMs: number | undefined,
  open: () => Promise<D>,
): Promise<{ db: D; close(): Promise<void> }> {
  const wait = waitMs ?? DEFAULT_WAIT_MS
  if (!Number.isSafeInteger(wait) || wait < 0) {
    throw new TypeError(
      `createPGliteKeyStore: option \`dataDirWaitMs\` must be a non-negative integer, got ${String(wait)}.`,
    )
  }
  let db: D | undefined
  const lock = await lockDataDir(dataDir, { waitMs: wait, onLost: () => void db?.close().catch(() => {}) })
  try {
    db = await open()
  } catch (error) {
    await lock?.release()
    throw error
  }
  const opened = db
  return {
    db: opened,
    close: async () => {
      try {
        if (!opened.closed) await opened.close()
      } finally {
        await lock?.release()
      }
    },
  }
}

/** A held lock on a data directory. */
export interface DataDirLock {
  release(): Promise<void>
}

interface Owner {
  readonly pid: number
  readonly host: string
  /** The process's start time as the system counts it (Linux), to tell a reused pid apart. */
  readonly start?: string | undefined
}

/** Options of {@link lockDataDir}. */
export interface LockDataDirOptions {
  /** How long to wait for a live owner to let go (a watch-mode restart) before refusing. */
  readonly waitMs: number
  /** Called once if the lock is lost (removed, or taken over while this process was stalled). */
  readonly onLost: (error: Error) => void
}

type Fs = typeof import('node:fs/promises')

// Locks of this process, shared by every copy of this module in it (ESM and CJS builds).
const HELD_KEY = Symbol.for('keyward.dataDirLocks')
function held(): Set<string> {
  const global = globalThis as { [HELD_KEY]?: Set<string> }
  if (!global[HELD_KEY]) global[HELD_KEY] = new Set()
  return global[HELD_KEY]
}

/**
 * Locks a PGlite data directory for this process, waiting up to `waitMs` for a live owner to
 * let go; a lock whose owner is gone is taken over at once, and a stale `postmaster.pid` of
 * PGlite is removed. Resolves to `undefined` for a location that is not a directory of the
 * file system (`memory://`, `idb://`, ...). Node's modules are loaded only then, as PGlite does.
 */
export async function lockDataDir(
  dataDir: string | undefined,
  options: LockDataDirOptions,
): Promise<DataDirLock | undefined> {
  const given = dataDir?.startsWith('file://') ? dataDir.slice('file://'.length) : dataDir
  if (!dataDir || !given || /^[a-z][a-z0-9-]*:\/\//i.test(given)) return undefined
  const [fs, { hostname }, { join, resolve }, lockfile] = await Promise.all([
    import('node:fs/promises'),
    import('node:os'),
    import('node:path'),
    import('proper-lockfile'),
  ])
  const root = resolve(given)
  const lockPath = join(root, LOCK)
  await fs.mkdir(root, { recursive: true })
  const me: Owner = { pid: process.pid, host: hostname(), start: await startOf(fs, process.pid) }

  // Whether the lock in `dir` is of a process that is gone, or was not refreshed for STALE_MS
  // by an owner that cannot be seen alive.
  const isStale = async (dir: string): Promise<boolean> => {
    const owner = await readOwner(fs, join(dir, OWNER))
    const state = owner && owner.host === me.host ? await stateOf(fs, owner, me) : 'unknown'
    if (state !== 'unknown') return state === 'gone'
    const stat = await fs.stat(dir).catch(() => undefined)
    return stat !== undefined && stat.mtimeMs < Date.now() - STALE_MS
  }
  // Moves the lock aside (atomic, so two processes never both take it over), then judges the
  // lock it moved: removed if stale, else (another process's, taken meanwhile) put back.
  const takeOver = async (): Promise<void> => {
    const aside = `${lockPath}.stale-${process.pid}-${Date.now()}`
    try {
      await fs.rename(lockPath, aside)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
      throw error
    }
    if (!(await isStale(aside))) await fs.rename(aside, lockPath).catch(() => {})
    await fs.rm(aside, { recursive: true, force: true })
  }

  const deadline = Date.now() + options.waitMs
  for (;;) {
    let lost = false
    const onCompromised = (error: Error) => {
      lost = true
      held().delete(lockPath)
      options.onLost(error)
    }
    const release = await lockfile
      .lock(root, { lockfilePath: lockPath, realpath: false, stale: STALE_MS, onCompromised })
      .catch((error: NodeJS.ErrnoException) => {
        // ENOTEMPTY: proper-lockfile found the lock stale by its mtime, but a lock with an owner
        // is judged here, by its owner.
        if (error.code === 'ELOCKED' || error.code === 'ENOTEMPTY') return undefined
        throw error
      })
    if (release) {
      try {
        // proper-lockfile checks that the lock's mtime is still the one it set: keep it.
        const { atime, mtime } = await fs.stat(lockPath)
        await fs.writeFile(join(lockPath, OWNER), `${JSON.stringify(me)}\n`)
        await fs.utimes(lockPath, atime, mtime)
        // Any PGlite that had the directory open held this lock: its postmaster.pid is stale.
        await fs.rm(join(root, 'postmaster.pid'), { force: true })
      } catch (error) {
        await fs.rm(join(lockPath, OWNER), { force: true })
        await release()
        throw error
      }
      held().add(lockPath)
      return {
        release: async () => {
          held().delete(lockPath)
          if (lost) return // the lock is another process's now: leave it be
          await fs.rm(join(lockPath, OWNER), { force: true })
          await release().catch((error: NodeJS.ErrnoException) => {
            if (error.code !== 'ERELEASED') throw error
          })
        },
      }
    }
    // This process has it open: no use waiting.
    if (held().has(lockPath)) throw new DataDirInUseError(dataDir, { pid: me.pid })
    if (await isStale(lockPath)) {
      await takeOver()
      continue
    }
    if (Date.now() >= deadline) {
      const owner = await readOwner(fs, join(lockPath, OWNER))
      throw new DataDirInUseError(
        dataDir,
        owner && { pid: owner.pid, host: owner.host === me.host ? undefined : owner.host },
      )
    }
    await new Promise((done) => setTimeout(done, RETRY_MS))
  }
}

async function readOwner(fs: Fs, path: string): Promise<Owner | undefined> {
  try {
    const owner = JSON.parse(await fs.readFile(path, 'utf8')) as Partial<Owner>
    if (!Number.isSafeInteger(owner.pid) || (owner.pid as number) <= 0 || typeof owner.host !== 'string') {
      return undefined
    }
    return owner as Owner
  } catch {
    return undefined // not written yet (the owner is taking the lock), or removed
  }
}

/**
 * Whether an owner on this host is gone (its pid is not running, is a zombie, or runs a process
 * started at another time), alive (the same process, running), or `unknown` (its pid runs, but
 * this system tells no start time to prove it is the same process).
 */
async function stateOf(fs: Fs, owner: Owner, me: Owner): Promise<'gone' | 'alive' | 'unknown'> {
  const start = owner.pid === me.pid ? me.start : await startOf(fs, owner.pid)
  if (owner.pid !== me.pid) {
    try {
      process.kill(owner.pid, 0)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return 'gone'
    }
  }
  if (start === 'zombie') return 'gone'
  if (start === undefined || owner.start === undefined) return 'unknown'
  return start === owner.start ? 'alive' : 'gone'
}

/**
 * When a process started, in clock ticks since boot (Linux's /proc/PID/stat, field 22), or
 * `'zombie'` for one that has exited but not been reaped; `undefined` where there is no /proc.
 */
async function startOf(fs: Fs, pid: number): Promise<string | undefined> {
  let stat: string
  try {
    stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return fields[0] === 'Z' ? 'zombie' : fields[19]
}
