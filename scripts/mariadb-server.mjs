// A MariaDB server of its own, for the fault tests that stall, kill and restart it and for the
// benches that measure the server's cost: built from the machine's binaries (mariadb-install-db,
// mariadbd) in a temporary directory, on a free port, and torn down after (the server killed, the
// directory removed), also when the process ends without tearing it down.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './replica-cluster.mjs'

// mysql2, as the MySQL package resolves it (the repository's root does not depend on it).
const mysql = createRequire(new URL('../packages/mysql/package.json', import.meta.url))('mysql2/promise')
const asRoot = process.getuid?.() === 0

/** Where a program is: on the PATH, else in the system directories of Debian's packages. */
function program(name) {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' })
  if (found.status === 0 && found.stdout.trim()) return found.stdout.trim()
  return ['/usr/sbin', '/usr/bin'].map((dir) => join(dir, name)).find((path) => existsSync(path))
}

const binaries = () => ({ server: program('mariadbd'), install: program('mariadb-install-db') })

/** Why a server of its own cannot be built here, or `undefined` when it can. */
export function mariadbServerUnavailable() {
  const { server, install } = binaries()
  if (!server || !install) {
    return 'no MariaDB server binaries (mariadbd and mariadb-install-db: install the mariadb-server package)'
  }
  return undefined
}

const live = new Set()
process.once('exit', () => {
  for (const server of live) server.destroy()
})

/** A MariaDB server of its own; its database `keyward` is at `url`. */
export class MariadbServer {
  /** @type {number} */
  port
  /** The connection string of the database `keyward`, as `root` without a password. */
  url
  #root
  #server
  #options
  #child

  constructor(root, port, server, options) {
    this.#root = root
    this.port = port
    this.#server = server
    this.#options = options
    this.url = `mysql://root@127.0.0.1:${port}/keyward`
  }

  /** Builds the data directory, starts the server and creates the database `keyward`. */
  static async start(options = {}) {
    const { server, install } = binaries()
    if (!server || !install) throw new Error(mariadbServerUnavailable())
    const root = mkdtempSync(join(tmpdir(), 'keyward-mariadb-'))
    const started = new MariadbServer(root, await freePort(), server, options)
    live.add(started)
    try {
      const built = spawnSync(
        install,
        [
          '--no-defaults',
          `--datadir=${join(root, 'data')}`,
          '--auth-root-authentication-method=normal',
          '--skip-test-db',
          ...(asRoot ? ['--user=root'] : []),
        ],
        { encoding: 'utf8', cwd: root },
      )
      if (built.status !== 0) {
        throw new Error(`mariadb-install-db failed (${built.status}): ${built.stderr || built.stdout}`)
      }
      await started.restart()
      const connection = await mysql.createConnection(started.url.replace(/\/keyward$/, ''))
      await connection.query('CREATE DATABASE keyward')
      await connection.end()
    } catch (error) {
      started.destroy()
      throw error
    }
    return started
  }

  /** The server's process id, while it runs. */
  get pid() {
    const child = this.#child
    return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined
  }

  /** Starts the server on its data directory and port; resolves once it accepts connections. */
  async restart() {
    if (this.pid !== undefined) throw new Error('The server is running.')
    const child = spawn(
      this.#server,
      [
        '--no-defaults',
        `--datadir=${join(this.#root, 'data')}`,
        `--port=${this.port}`,
        `--socket=${join(this.#root, 'sock')}`,
        `--pid-file=${join(this.#root, 'server.pid')}`,
        `--log-error=${this.#log}`,
        '--bind-address=127.0.0.1',
        '--skip-networking=0',
        // Small and quick, as durable as the default: a commit is on disk when it returns.
        '--innodb-buffer-pool-size=32M',
        '--innodb-log-file-size=16M',
        '--innodb-flush-log-at-trx-commit=1',
        `--max-connections=${this.#options.maxConnections ?? 200}`,
        ...(asRoot ? ['--user=root'] : []),
      ],
      { stdio: 'ignore' },
    )
    this.#child = child
    const deadline = Date.now() + 60_000
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `mariadbd exited (${child.exitCode ?? child.signalCode}) while starting: ${this.#logTail()}`,
        )
      }
      const connection = await mysql
        .createConnection({ host: '127.0.0.1', port: this.port, user: 'root' })
        .then(
          (opened) => opened,
          () => undefined,
        )
      if (connection) {
        await connection.end()
        return
      }
      if (Date.now() > deadline)
        throw new Error(`mariadbd did not accept connections within 60 s: ${this.#logTail()}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  /** Stops the server where it is (SIGSTOP): connections stay open and get no answer. */
  stall() {
    this.#signal('SIGSTOP')
  }

  /** Lets a stalled server run on (SIGCONT). */
  resume() {
    this.#signal('SIGCONT')
  }

  /** Kills the server (SIGKILL, a crash) and waits until its process has ended. */
  async kill() {
    const child = this.#child
    if (!child || this.pid === undefined) return
    const ended = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await ended
  }

  /** Kills the server, if it runs, and removes its directory. */
  destroy() {
    live.delete(this)
    const pid = this.pid
    if (pid !== undefined) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // Ended already.
      }
    }
    rmSync(this.#root, { recursive: true, force: true })
  }

  get #log() {
    return join(this.#root, 'server.log')
  }

  #logTail() {
    return existsSync(this.#log)
      ? readFileSync(this.#log, 'utf8').split('\n').slice(-15).join('\n')
      : '(no log)'
  }

  #signal(signal) {
    const pid = this.pid
    if (pid === undefined) throw new Error('The server is not running.')
    process.kill(pid, signal)
  }
}
