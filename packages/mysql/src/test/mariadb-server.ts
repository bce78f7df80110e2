// A MariaDB server of a test file's own, for the fault tests that stall, kill and restart it:
// built from the machine's binaries (mariadb-install-db, mariadbd) in a temporary directory, on a
// free port, and torn down after (the server killed, the directory removed), also when the test
// process ends without its afterAll.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import { freePort } from '../../../../scripts/replica-cluster.mjs'

const asRoot = process.getuid?.() === 0

/** Where a program is: on the PATH, else in the system directories of Debian's packages. */
function program(name: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' })
  if (found.status === 0 && found.stdout.trim()) return found.stdout.trim()
  return ['/usr/sbin', '/usr/bin'].map((dir) => join(dir, name)).find((path) => existsSync(path))
}

const binaries = () => ({ server: program('mariadbd'), install: program('mariadb-install-db') })

/** Why a server of a test's own cannot be built here, or `undefined` when it can. */
export function mariadbServerUnavailable(): string | undefined {
  const { server, install } = binaries()
  if (!server || !install) {
    return 'no MariaDB server binaries (mariadbd and mariadb-install-db: install the mariadb-server package)'
  }
  return undefined
}

const live = new Set<MariadbServer>()
process.once('exit', () => {
  for (const server of live) server.destroy()
})

/** A MariaDB server of its own; its database `keyward` is at {@link url}. */
export class MariadbServer {
  readonly port: number
  /** The connection string of the database `keyward`, as `root` without a password. */
  readonly url: string
  readonly #root: string
  readonly #server: string
  #child: ChildProcess | undefined

  private constructor(root: string, port: number, server: string) {
    this.#root = root
    this.port = port
    this.#server = server
    this.url = `mysql://root@127.0.0.1:${port}/keyward`
  }

  /** Builds the data directory, starts the server and creates the database `keyward`. */
  static async start(): Promise<MariadbServer> {
    const { server, install } = binaries()
    if (!server || !install) throw new Error(mariadbServerUnavailable())
    const root = mkdtempSync(join(tmpdir(), 'keyward-mariadb-'))
    const started = new MariadbServer(root, await freePort(), server)
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
  get pid(): number | undefined {
    const child = this.#child
    return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined
  }

  /** Starts the server on its data directory and port; resolves once it accepts connections. */
  async restart(): Promise<void> {
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
        '--max-connections=200',
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
  stall(): void {
    this.#signal('SIGSTOP')
  }

  /** Lets a stalled server run on (SIGCONT). */
  resume(): void {
    this.#signal('SIGCONT')
  }

  /** Kills the server (SIGKILL, a crash) and waits until its process has ended. */
  async kill(): Promise<void> {
    const child = this.#child
    if (!child || this.pid === undefined) return
    const ended = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await ended
  }

  /** Kills the server, if it runs, and removes its directory. */
  destroy(): void {
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

  get #log(): string {
    return join(this.#root, 'server.log')
  }

  #logTail(): string {
    return existsSync(this.#log)
      ? readFileSync(this.#log, 'utf8').split('\n').slice(-15).join('\n')
      : '(no log)'
  }

  #signal(signal: NodeJS.Signals): void {
    const pid = this.pid
    if (pid === undefined) throw new Error('The server is not running.')
    process.kill(pid, signal)
  }
}
