// One process per PGlite data directory. PGlite lets a second database open a directory that
// one has open (two corrupt it), and the `postmaster.pid` it writes names no process (its pid
// is -42), so it cannot tell a live owner from a crashed one. The directory is locked with
// proper-lockfile instead: an atomic `mkdir` of `keyward.lock`, whose mtime its owner refreshes
// while it lives (stale after STALE_MS without), released on close and on a signal or exit.
// Beside it, `keyward.lock.json` names the owner (pid, host, start time), so that a lock left by a
// process that is gone (kill -9, a crash) is taken over at once, and a live owner is named.

/** Without a refresh for this long, a lock is stale whoever holds it (proper-lockfile's default). */
const STALE_MS = 10_000
/** How often a waiting process looks again at a lock held by a live owner. */
const RETRY_MS = 100
const LOCK = 'keyward.lock'
const OWNER = 'keyward.lock.json'

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

  constructor(dataDir: string, owner?: { readonly pid: number; readonly host?: string }) {
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

/** A held lock on a data directory. */
export interface DataDirLock {
  release(): Promise<void>
}

interface Owner {
  readonly pid: number
  readonly host: string
  /** The process's start time as the system counts it (Linux), to tell a reused pid apart. */
  readonly start?: string
}

/** Options of {@link lockDataDir}. */
export interface LockDataDirOptions {
  /** How long to wait for a live owner to let go (a watch-mode restart) before refusing. */
  readonly waitMs: number
  /** Called once if the lock is lost (taken over while this process was stalled past STALE_MS). */
  readonly onLost: (error: Error) => void
}

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
  const ownerPath = join(root, OWNER)
  await fs.mkdir(root, { recursive: true })
  const me: Owner = { pid: process.pid, host: hostname(), start: await startOf(fs, process.pid) }
  const deadline = Date.now() + options.waitMs
  for (;;) {
    const release = await lockfile
      .lock(root, { lockfilePath: lockPath, realpath: false, stale: STALE_MS, onCompromised: options.onLost })
      .catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ELOCKED') return undefined
        throw error
      })
    if (release) {
      try {
        await fs.writeFile(ownerPath, `${JSON.stringify(me)}\n`)
        // Any PGlite that had the directory open held this lock: its postmaster.pid is stale.
        await fs.rm(join(root, 'postmaster.pid'), { force: true })
      } catch (error) {
        await release()
        throw error
      }
      held().add(lockPath)
      return {
        release: async () => {
          held().delete(lockPath)
          // The owner goes first: once the lock is free, the next owner writes its own.
          await fs.rm(ownerPath, { force: true })
          await release().catch((error: NodeJS.ErrnoException) => {
            if (error.code !== 'ERELEASED') throw error
          })
        },
      }
    }
    // This process has it open: no use waiting.
    if (held().has(lockPath)) throw new DataDirInUseError(dataDir, { pid: me.pid })
    const owner = await readOwner(fs, ownerPath)
    if (owner && (await isGone(fs, owner, me))) {
      // Its owner was killed or crashed: take it over (proper-lockfile would after STALE_MS).
      await fs.rm(ownerPath, { force: true })
      await fs.rm(lockPath, { recursive: true, force: true })
      continue
    }
    if (Date.now() >= deadline) {
      throw new DataDirInUseError(
        dataDir,
        owner && { pid: owner.pid, host: owner.host === me.host ? undefined : owner.host },
      )
    }
    await new Promise((done) => setTimeout(done, RETRY_MS))
  }
}

type Fs = typeof import('node:fs/promises')

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
 * Whether the owner is known to be gone: on this host, its pid is not running (or runs another
 * process, started at another time). An owner on another host is never judged from here: its
 * lock goes stale when it stops refreshing it.
 */
async function isGone(fs: Fs, owner: Owner, me: Owner): Promise<boolean> {
  if (owner.host !== me.host) return false
  if (owner.pid === me.pid)
    return owner.start !== undefined && me.start !== undefined && owner.start !== me.start
  try {
    process.kill(owner.pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
  const start = await startOf(fs, owner.pid)
  return start === 'zombie' || (start !== undefined && owner.start !== undefined && start !== owner.start)
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
  if (fields[0] === 'Z') return 'zombie'
  return fields[19]
}
