// A PostgreSQL cluster of a test's own (initdb in a temporary directory, on a free port), for
// fault tests that stop and restart the server: the shared server is never touched.
import { execFileSync, spawnSync } from 'node:child_process'
import { chownSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The server binaries, from `pg_config --bindir`; undefined without them. */
export const PG_BIN: string | undefined = (() => {
  const found = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' })
  return found.status === 0 ? found.stdout.trim() : undefined
})()

const isRoot = process.getuid?.() === 0

// initdb refuses to run as root: as root, run the server binaries as the `postgres` user.
function run(binary: string, args: string[]): void {
  const file = join(PG_BIN as string, binary)
  if (isRoot) execFileSync('runuser', ['-u', 'postgres', '--', file, ...args], { stdio: 'pipe' })
  else execFileSync(file, args, { stdio: 'pipe' })
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

export interface OwnCluster {
  readonly url: string
  stop(): void
  start(): void
  /** Stops the server and removes its directory. */
  destroy(): void
}

export async function startOwnCluster(): Promise<OwnCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'keyward-pg-'))
  if (isRoot) spawnSync('chown', ['postgres', dir])
  else chownSync(dir, process.getuid?.() ?? 0, process.getgid?.() ?? 0)
  const data = join(dir, 'data')
  const port = await freePort()
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`
  const start = () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start'])
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop'])
  start()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    destroy: () => {
      try {
        stop()
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
