// `pnpm start`: builds what the reference server needs, only what changed since its last build,
// then runs the server.
//
// - A package is rebuilt when one of its inputs (its own files, the shared build configuration,
//   the lock file) is newer than its build output, or when a workspace package it builds against
//   was built after it: as make decides. On a built, unchanged checkout (after `pnpm build` or a
//   first `pnpm start`) nothing is built and the server starts at once.
// - While a server started this way runs (its pid in `node_modules/.cache/keyward-start.pid`),
//   a second start does not rebuild: a build empties `dist/` first, which would pull the running
//   server's files (the console's page among them) from under it.
// - Ctrl-C and SIGTERM go to the server, which stops cleanly; this process then exits with the
//   server's code, 0 after a clean stop, so pnpm reports no failure (the repository's `.npmrc`
//   runs scripts without a shell of their own, which would die of the signal).
// - `--check` prints what would be built, and starts nothing.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const SERVER = 'examples/server'
const SHARED_INPUTS = ['tsup.base.ts', 'tsconfig.base.json', 'pnpm-lock.yaml']
const SKIPPED = new Set(['node_modules', 'dist', 'test-results', '.turbo'])
const PID_FILE = join(root, 'node_modules/.cache/keyward-start.pid')

/** The workspace's packages by name: their folder and the workspace packages they build against. */
function workspace() {
  const byName = new Map()
  for (const folder of ['packages', 'examples']) {
    for (const entry of readdirSync(join(root, folder))) {
      const dir = join(folder, entry)
      const manifest = join(root, dir, 'package.json')
      if (!existsSync(manifest)) continue
      const pkg = JSON.parse(readFileSync(manifest, 'utf8'))
      const deps = { ...pkg.dependencies, ...pkg.devDependencies }
      byName.set(pkg.name, {
        name: pkg.name,
        dir,
        runtime: Object.keys(pkg.dependencies ?? {}).filter((d) => String(deps[d]).startsWith('workspace:')),
        all: Object.keys(deps).filter((d) => String(deps[d]).startsWith('workspace:')),
      })
    }
  }
  return byName
}

/** The packages the server needs, dependencies first (the server's own dev dependencies left out). */
function buildOrder(byName, top) {
  const order = []
  const seen = new Set()
  const visit = (name, deps) => {
    if (seen.has(name)) return
    seen.add(name)
    for (const dep of deps) visit(dep, byName.get(dep).all)
    order.push({ ...byName.get(name), deps })
  }
  visit(top.name, top.runtime)
  return order
}

/** Every file of a folder that a build reads: all but dependencies, outputs and test reports. */
function inputFiles(dir) {
  const files = []
  const walk = (at) => {
    for (const entry of readdirSync(join(root, at), { withFileTypes: true })) {
      if (SKIPPED.has(entry.name) || entry.name.startsWith('.')) continue
      const path = join(at, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.isFile()) files.push(path)
    }
  }
  walk(dir)
  return files.sort()
}

/** The newest and oldest modification times of files under `dir` (or of `files`), in ms. */
function times(paths) {
  let newest = 0
  let oldest = Number.POSITIVE_INFINITY
  for (const path of paths) {
    const { mtimeMs } = statSync(join(root, path))
    newest = Math.max(newest, mtimeMs)
    oldest = Math.min(oldest, mtimeMs)
  }
  return { newest, oldest }
}

function outputFiles(dir) {
  const dist = join(dir, 'dist')
  if (!existsSync(join(root, dist))) return []
  const files = []
  const walk = (at) => {
    for (const entry of readdirSync(join(root, at), { withFileTypes: true })) {
      const path = join(at, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.isFile()) files.push(path)
    }
  }
  walk(dist)
  return files
}

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

const byName = workspace()
const server = [...byName.values()].find((pkg) => pkg.dir === SERVER)
const order = buildOrder(byName, server)
const sharedInputs = times(SHARED_INPUTS).newest
const built = new Map() // name -> the output times of a package that needs no build
const stale = []
for (const pkg of order) {
  const outputs = outputFiles(pkg.dir)
  const output = outputs.length > 0 ? times(outputs) : undefined
  const inputs = Math.max(sharedInputs, times(inputFiles(pkg.dir)).newest)
  const fresh =
    output !== undefined &&
    inputs <= output.oldest &&
    pkg.deps.every((dep) => built.has(dep) && built.get(dep).newest <= output.oldest)
  if (fresh) built.set(pkg.name, output)
  else stale.push(pkg)
}

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
  const filters = stale.flatMap((pkg) => ['--filter', pkg.name])
  const build = spawnSync('pnpm', [...filters, '--workspace-concurrency=2', 'build'], {
    cwd: root,
    stdio: 'inherit',
  })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

// The server runs in a process group of its own: Ctrl-C reaches this process only, which passes
// it on once (a second signal would make the server stop at once, without finishing requests).
const child = spawn(process.execPath, [join(root, SERVER, 'dist/main.js')], {
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
