// A real PostgreSQL primary and a streaming standby, built for a test file or a benchmark
// from the machine's PostgreSQL binaries (initdb, pg_ctl, pg_basebackup -R, psql) in a
// temporary directory, on two free ports, and torn down after: both servers stopped, the
// directory removed.
import { execFile, execFileSync, spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'

const hasServerTools = (dir) =>
  ['initdb', 'pg_ctl', 'pg_basebackup', 'psql'].every((tool) => existsSync(join(dir, tool)))
/**
 * Where the PostgreSQL server binaries are: `KEYWARD_PG_BINDIR`, else what `pg_config` says,
 * else the newest version in Debian's layout.
 */
export function postgresBinDir() {
  const named = process.env.KEYWARD_PG_BINDIR
  if (named) return hasServerTools(named) ? named : undefined
  const found = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' })
  const dir = found.status === 0 ? found.stdout.trim() : ''
  if (dir && hasServerTools(dir)) return dir
  const debian = '/usr/lib/postgresql'
  const versions = existsSync(debian) ? readdirSync(debian).filter((v) => /^\d+$/.test(v)) : []
  return versions
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => join(debian, version, 'bin'))
    .find(hasServerTools)
}
/** Why replica clusters cannot be built here, or `undefined` when they can. */
export function replicaClusterUnavailable() {
  if (!postgresBinDir())
    return 'no PostgreSQL server binaries (set KEYWARD_PG_BINDIR or put pg_config on PATH)'
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) {
    return 'running as root without a `postgres` user to run the servers'
  }
  return undefined
}
/** A free TCP port on 127.0.0.1 (the kernel picks it; it is free again when this resolves). */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}
/**
 * A primary and one streaming standby. The standby replays commits `applyDelayMs` after the
 * primary made them (`recovery_min_apply_delay`), so tests can see it lag.
 */
export class ReplicaCluster {
  primary
  standby
  applyDelayMs
  #bin
  #root
  #asPostgres
  #running = new Set()
  #user = ''
  constructor(bin, root, primary, standby, applyDelayMs) {
    this.primary = primary
    this.standby = standby
    this.applyDelayMs = applyDelayMs
    this.#bin = bin
    this.#root = root
    this.#asPostgres = process.getuid?.() === 0
  }
  /**
   * Builds and starts both servers; the standby is streaming when this resolves. With
   * `standby: false`, only the primary (for tests that stop and restart one server).
   * `settings` (`name = value` lines) are added to the primary's configuration, after the defaults.
   */
  static async start(options = {}) {
    const bin = postgresBinDir()
    if (!bin) throw new Error(replicaClusterUnavailable())
    const root = mkdtempSync(join(tmpdir(), 'keyward-replicas-'))
    const asPostgres = process.getuid?.() === 0
    if (asPostgres) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }))
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }))
      chownSync(root, uid, gid)
    }
    const user = asPostgres ? 'postgres' : userInfo().username
    const node = (name, port) => ({
      port,
      dataDir: join(root, name),
      url: `postgres://${user}@127.0.0.1:${port}/postgres`,
    })
    const cluster = new ReplicaCluster(
      bin,
      root,
      node('primary', await freePort()),
      node('standby', await freePort()),
      options.applyDelayMs ?? 3000,
    )
    live.add(cluster)
    try {
      await cluster.#build(user, options.standby ?? true, options.settings ?? [])
    } catch (error) {
      await cluster.destroy()
      throw error
    }
    return cluster
  }
  async #build(user, withStandby, settings) {
    this.#user = user
    const { primary, standby } = this
    this.#run('initdb', ['-D', primary.dataDir, '-U', user, '--auth=trust', '--no-sync', '-E', 'UTF8'])
    this.#configure(primary, [
      'wal_level = replica',
      'max_wal_senders = 4',
      // Small and quick: these servers live for one test file.
      'shared_buffers = 16MB',
      'max_connections = 100',
      'fsync = off',
      ...settings,
    ])
    this.#run('pg_ctl', ['-D', primary.dataDir, '-l', join(this.#root, 'primary.log'), '-w', 'start'])
    this.#running.add(primary)
    if (!withStandby) return
    this.#run('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primary.port),
      '-U',
      user,
      '-D',
      standby.dataDir,
      '-R',
      '-X',
      'stream',
      '--no-sync',
    ])
    this.#configure(standby, [
      'hot_standby = on',
      `recovery_min_apply_delay = '${this.applyDelayMs}ms'`,
      // Probes and lookups on the standby must not be cancelled by replay.
      'hot_standby_feedback = on',
    ])
    await this.startNode(standby)
    await this.#waitForStreaming()
  }
  /** Appends settings to a node's configuration (port and sockets included). */
  #configure(node, settings) {
    const lines = [
      `port = ${node.port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${this.#root}'`,
      ...settings,
    ]
    this.#shell(
      `printf '%s\\n' ${lines.map(quote).join(' ')} >> ${quote(join(node.dataDir, 'postgresql.conf'))}`,
    )
  }
  async #waitForStreaming() {
    for (let i = 0; i < 200; i++) {
      const streaming = this.#psql(
        this.primary,
        "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'",
      )
      if (streaming !== '0') return
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error('The standby did not start streaming within 10 s.')
  }
  /** Runs one query on a node with psql; returns its output, unaligned and without headers. */
  #psql(node, sql) {
    return this.#shell(
      [
        join(this.#bin, 'psql'),
        '-h',
        '127.0.0.1',
        '-p',
        String(node.port),
        '-U',
        this.#user,
        '-d',
        'postgres',
        '-Atc',
        sql,
      ]
        .map(quote)
        .join(' '),
    ).trim()
  }
  /** Appends settings to a running node's configuration and reloads it. */
  reconfigure(node, settings) {
    this.#configure(node, settings)
    this.#run('pg_ctl', ['-D', node.dataDir, 'reload'])
  }
  /**
   * Starts a stopped node and waits until it accepts connections. Like {@link stopNode}, without
   * blocking this process: what runs in it meanwhile (stores, feeds, traffic) sees the node change
   * when it does.
   */
  async startNode(node) {
    const log = join(this.#root, `${node === this.primary ? 'primary' : 'standby'}.log`)
    this.#running.add(node)
    await this.#runAsync('pg_ctl', ['-D', node.dataDir, '-l', log, '-w', '-t', '30', 'start'])
  }
  /**
   * Stops a node: `fast` closes its sessions and shuts down cleanly; `immediate` is a crash.
   * Without blocking this process: its stores hear their connections drop when they do, as they
   * would in a crash, not once the stop has returned.
   */
  async stopNode(node, mode = 'fast') {
    if (mode === 'immediate') await this.#crash(node)
    else await this.#runAsync('pg_ctl', ['-D', node.dataDir, '-m', mode, '-w', 'stop'])
    this.#running.delete(node)
  }
  /**
   * What `pg_ctl -m immediate stop` does, SIGQUIT to the postmaster, sent from here: the crash
   * comes now, not once a shell and pg_ctl have started on a loaded machine. Like pg_ctl, waits
   * until the server has removed its pid file.
   */
  async #crash(node) {
    const pidFile = join(node.dataDir, 'postmaster.pid')
    process.kill(Number(readFileSync(pidFile, 'utf8').split('\n')[0]), 'SIGQUIT')
    const deadline = Date.now() + 60_000
    while (existsSync(pidFile)) {
      if (Date.now() > deadline) throw new Error(`The server in ${node.dataDir} did not stop within 60 s.`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  /** Stops whatever still runs and removes the directory. */
  async destroy() {
    this.destroySync()
  }
  /** {@link destroy}, synchronously (for a process that is exiting). */
  destroySync() {
    live.delete(this)
    for (const node of [...this.#running]) {
      try {
        this.#run('pg_ctl', ['-D', node.dataDir, '-m', 'immediate', '-w', 'stop'])
      } catch {
        // Stopped already: nothing to do.
      }
      this.#running.delete(node)
    }
    rmSync(this.#root, { recursive: true, force: true })
  }
  #run(tool, args) {
    this.#shell([join(this.#bin, tool), ...args].map(quote).join(' '))
  }
  #runAsync(tool, args) {
    const command = [join(this.#bin, tool), ...args].map(quote).join(' ')
    const [file, argv] = this.#asUser(command)
    return new Promise((resolve, reject) => {
      execFile(file, argv, { encoding: 'utf8', cwd: this.#root }, (error, stdout, stderr) => {
        if (error) reject(failed(command, error.code, stderr || stdout))
        else resolve(stdout)
      })
    })
  }
  #shell(command) {
    const [file, args] = this.#asUser(command)
    const result = spawnSync(file, args, { encoding: 'utf8', cwd: this.#root })
    if (result.status !== 0) throw failed(command, result.status, result.stderr || result.stdout)
    return result.stdout
  }
  /** The program and arguments that run `command` in a shell, as the `postgres` user when root. */
  #asUser(command) {
    return this.#asPostgres
      ? ['runuser', ['-u', 'postgres', '--', 'sh', '-c', command]]
      : ['sh', ['-c', command]]
  }
}
// A test process that ends without its afterAll (a timeout, an uncaught error) still stops
// the servers it started and removes their directory.
const live = new Set()
process.once('exit', () => {
  for (const cluster of live) cluster.destroySync()
})
const quote = (value) => `'${value.replaceAll("'", "'\\''")}'`
const failed = (command, status, output) =>
  new Error(`${command.split(' ')[0]} failed (${status}): ${output}`)
