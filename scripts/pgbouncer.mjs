// A real PgBouncer for a test file or a benchmark: its own process (as the `postgres` user when
// the tests run as root: PgBouncer refuses to run as root), a generated configuration in a
// temporary directory, a free port, in front of a PostgreSQL server. Stock settings except what
// must be set: where it listens, the database entry, authentication and the pool mode. Stopped
// and its directory removed after, also when the test process exits without its afterAll.
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { accessSync, chownSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { delimiter, join } from 'node:path'
import { freePort } from './replica-cluster.mjs'

const executable = (path) => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/**
 * Where the pgbouncer binary is: `KEYWARD_PGBOUNCER_BIN`, else on `PATH`, else in the system
 * directories where distributions install it (Debian: /usr/sbin).
 */
export function pgbouncerBinary() {
  const named = process.env.KEYWARD_PGBOUNCER_BIN
  if (named) return executable(named) ? named : undefined
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin']
  return dirs
    .filter(Boolean)
    .map((dir) => join(dir, 'pgbouncer'))
    .find(executable)
}

/** The user PgBouncer runs as: `postgres` when the tests run as root, else the current user. */
function runAs() {
  if (process.getuid?.() !== 0) return undefined
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }))
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }))
    return { uid, gid }
  } catch {
    return null
  }
}

/**
 * Why PgBouncer tests cannot run here, or `undefined` when they can. With
 * `KEYWARD_REQUIRE_PGBOUNCER=1` (CI) a missing PgBouncer throws instead: the run fails.
 */
export function pgbouncerUnavailable() {
  let reason
  if (!pgbouncerBinary()) {
    reason = 'no pgbouncer binary (install the pgbouncer package, or set KEYWARD_PGBOUNCER_BIN)'
  } else if (runAs() === null) {
    reason = 'running as root without a `postgres` user to run pgbouncer'
  }
  if (reason && process.env.KEYWARD_REQUIRE_PGBOUNCER === '1') {
    throw new Error(`KEYWARD_REQUIRE_PGBOUNCER=1, but PgBouncer cannot run: ${reason}.`)
  }
  return reason
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function accepts(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const LOG_LIMIT = 64 * 1024

/** A PgBouncer process in front of one PostgreSQL server. */
export class PgBouncer {
  port
  poolMode
  #binary
  #root
  #config
  #ids
  #child
  #watchdog
  #log = ''

  constructor(binary, root, config, port, poolMode, ids) {
    this.#binary = binary
    this.#root = root
    this.#config = config
    this.port = port
    this.poolMode = poolMode
    this.#ids = ids
  }

  /**
   * Writes a configuration and starts PgBouncer; it accepts connections when this resolves.
   * `server` is the PostgreSQL server's URL (its host, port and user are used; trust
   * authentication); `settings` are more `name = value` lines of the `[pgbouncer]` section.
   */
  static async start(options) {
    const binary = pgbouncerBinary()
    const reason = pgbouncerUnavailable()
    if (reason || !binary) throw new Error(`PgBouncer cannot run: ${reason}.`)
    const server = new URL(options.server)
    const poolMode = options.poolMode ?? 'transaction'
    const ids = runAs() ?? undefined
    const root = mkdtempSync(join(tmpdir(), 'keyward-pgbouncer-'))
    if (ids) chownSync(root, ids.uid, ids.gid)
    const port = await freePort()
    const user = decodeURIComponent(server.username) || userInfo().username
    const config = join(root, 'pgbouncer.ini')
    const lines = [
      '[databases]',
      // Any database name, on the one server: the tests make databases of their own.
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '',
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${root}`,
      // The server trusts its local users: PgBouncer does too, for the users of its auth_file
      // (with `trust`, a user must still be listed there).
      'auth_type = trust',
      `auth_file = ${join(root, 'userlist.txt')}`,
      `pool_mode = ${poolMode}`,
      // What Debian's pgbouncer.ini and the documentation suggest for JDBC and psql; no other.
      'ignore_startup_parameters = extra_float_digits',
      ...(options.settings ?? []),
      '',
    ]
    writeFileSync(config, lines.join('\n'))
    writeFileSync(join(root, 'userlist.txt'), `"${user.replaceAll('"', '""')}" ""\n`)
    const bouncer = new PgBouncer(binary, root, config, port, poolMode, ids)
    live.add(bouncer)
    bouncer.#watch()
    try {
      await bouncer.restart()
    } catch (error) {
      bouncer.destroySync()
      throw error
    }
    return bouncer
  }

  /**
   * A test worker can end without an exit event (killed by the runner): a watchdog, reading a
   * pipe from this process, stops PgBouncer and removes the directory when the pipe closes.
   */
  #watch() {
    const pidFile = join(this.#root, 'pid')
    const script = 'read _; [ -f "$0" ] && kill -9 "$(cat "$0")" 2>/dev/null; rm -rf "$1"'
    const watchdog = spawn('sh', ['-c', script, pidFile, this.#root], {
      stdio: ['pipe', 'ignore', 'ignore'],
    })
    watchdog.unref()
    watchdog.stdin.unref?.()
    watchdog.stdin.on('error', () => {})
    this.#watchdog = watchdog
  }

  /** `url` (of the PostgreSQL server behind) with its host and port changed to PgBouncer's. */
  through(url) {
    const through = new URL(url)
    through.hostname = '127.0.0.1'
    through.port = String(this.port)
    return through.toString()
  }

  /** Whether the process runs. */
  get running() {
    return this.#child !== undefined
  }

  /** What PgBouncer logged lately (its stderr). */
  log() {
    return this.#log
  }

  /** Starts PgBouncer again (same configuration and port) and waits until it accepts connections. */
  async restart() {
    if (this.#child) throw new Error('PgBouncer is running.')
    for (let attempt = 1; ; attempt++) {
      const child = spawn(this.#binary, [this.#config], {
        cwd: this.#root,
        stdio: ['ignore', 'ignore', 'pipe'],
        ...(this.#ids ?? {}),
      })
      this.#child = child
      writeFileSync(join(this.#root, 'pid'), String(child.pid))
      const exited = once(child, 'exit')
      child.stderr.setEncoding('utf8').on('data', (chunk) => {
        this.#log = (this.#log + chunk).slice(-LOG_LIMIT)
      })
      child.once('exit', () => {
        if (this.#child === child) this.#child = undefined
      })
      let gone = false
      exited.then(() => {
        gone = true
      })
      for (let i = 0; i < 500 && !gone; i++) {
        if (await accepts(this.port)) return
        await sleep(20)
      }
      if (!gone) {
        await this.kill()
        throw new Error(`PgBouncer did not accept connections within 10 s:\n${this.#log}`)
      }
      // Its port still held by the process just killed: try again, briefly.
      if (attempt >= 50 || !/Address already in use/.test(this.#log)) {
        throw new Error(`PgBouncer exited at start:\n${this.#log}`)
      }
      await sleep(100)
    }
  }

  /** Ends the process with `signal` (default SIGKILL: a crash) and waits until it is gone. */
  async kill(signal = 'SIGKILL') {
    const child = this.#child
    if (!child) return
    const exited = once(child, 'exit')
    child.kill(signal)
    await exited
  }

  /** Stops PgBouncer and removes its directory. */
  async destroy() {
    await this.kill('SIGTERM')
    this.destroySync()
  }

  /** {@link destroy}, synchronously (for a process that is exiting). */
  destroySync() {
    live.delete(this)
    this.#watchdog?.kill('SIGKILL')
    this.#child?.kill('SIGKILL')
    this.#child = undefined
    rmSync(this.#root, { recursive: true, force: true })
  }
}

// A test process that ends without its afterAll still stops its PgBouncers and removes their directories.
const live = new Set()
process.once('exit', () => {
  for (const bouncer of live) bouncer.destroySync()
})
