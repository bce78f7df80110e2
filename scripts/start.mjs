// `pnpm start`: builds what the reference server needs, only what changed since its last build,
// then runs the server.
//
// - A package is rebuilt only when it changed since its last build (scripts/lib/builds.mjs): on a
//   built, unchanged checkout (after `pnpm build` and a first `pnpm start`) nothing is built and
//   the server starts at once.
// - While a server started this way runs (its pid in `node_modules/.cache/keyward-start.pid`),
//   a second start does not rebuild: a build empties `dist/` first, which would pull the running
//   server's files (the console's page among them) from under it.
// - Ctrl-C and SIGTERM go to the server, which stops cleanly; this process then exits with the
//   server's code, 0 after a clean stop, so pnpm reports no failure (pnpm-workspace.yaml's `shellEmulator`
//   runs scripts without a shell of their own, which would die of the signal).
// - `--check` prints what would be built, and starts nothing.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildOrder, buildPackages, stalePackages, workspacePackages } from './lib/builds.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const SERVER = '@keyward/example-server'
const PID_FILE = join(root, 'node_modules/.cache/keyward-start.pid')

/** The pid of a server that `pnpm start` runs from this checkout, if one still runs. */
function runningServer() {
  if (!existsSync(PID_FILE)) return undefined
  const pid = Number(readFileSync(PID_FILE, 'utf8'))
  try {
    process.kill(pid, 0)
    return pid
  } catch {
    return undefined
  }
}

const stale = stalePackages(buildOrder(workspacePackages(), [SERVER], { runtimeOnly: true }))

if (process.argv.includes('--check')) {
  console.log(stale.length === 0 ? 'Up to date.' : `To build: ${stale.map((pkg) => pkg.name).join(', ')}`)
  process.exit(0)
}

if (stale.length > 0) {
  const running = runningServer()
  if (running !== undefined) {
    console.error(
      `keyward-server: the server started from this checkout is still running (pid ${running}), and ` +
        `${stale.map((pkg) => pkg.name).join(', ')} changed since it was built: stop it before ` +
        'starting again, so that the build does not replace its files while it runs.',
    )
    process.exit(1)
  }
  console.log(`Building ${stale.map((pkg) => pkg.name).join(', ')} ...`)
  const status = buildPackages(stale)
  if (status !== 0) process.exit(status)
}

// The server runs in a process group of its own: Ctrl-C reaches this process only, which passes
// it on once (a second signal would make the server stop at once, without finishing requests).
const child = spawn(process.execPath, [join(root, 'examples/server/dist/main.js')], {
  cwd: process.cwd(),
  stdio: ['ignore', 'inherit', 'inherit'],
  detached: true,
})
mkdirSync(dirname(PID_FILE), { recursive: true })
writeFileSync(PID_FILE, String(child.pid))
const forget = () => {
  if (existsSync(PID_FILE) && readFileSync(PID_FILE, 'utf8') === String(child.pid)) rmSync(PID_FILE)
}
// pnpm passes Ctrl-C on too: the same signal twice within a second is one.
let lastSignal = { signal: '', at: 0 }
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    const now = Date.now()
    const repeated = lastSignal.signal === signal && now - lastSignal.at < 1000
    lastSignal = { signal, at: now }
    if (!repeated && child.exitCode === null) child.kill(signal)
  })
}
// Should this process end first, the server ends with it.
process.on('exit', () => {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
})
child.on('exit', (code) => {
  forget()
  process.exit(code ?? 1)
})
