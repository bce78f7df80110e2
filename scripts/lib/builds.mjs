// Builds only what changed, as make decides: a workspace package is rebuilt when one of its files
// (all but dependencies, outputs and test reports), the shared build configuration or the lock file
// is newer than its last successful build, or when a workspace package it builds against was built
// after it. A successful build leaves `dist/.built`; a failed or interrupted one leaves none (tsup
// empties `dist/` first), so the package counts as changed until it builds.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, readJson } from './workspace.mjs'

const SHARED_INPUTS = ['tsup.base.ts', 'tsconfig.base.json', 'pnpm-lock.yaml']
const SKIPPED = new Set(['node_modules', 'dist', 'test-results'])
const STAMP = join('dist', '.built')

/** The workspace's packages by name: `{ name, dir, runtime, all }` (workspace dependencies). */
export function workspacePackages(root = ROOT) {
  const byName = new Map()
  for (const folder of ['packages', 'examples']) {
    for (const entry of readdirSync(join(root, folder))) {
      const dir = join(folder, entry)
      if (!existsSync(join(root, dir, 'package.json'))) continue
      const pkg = readJson(join(root, dir, 'package.json'))
      const deps = { ...pkg.dependencies, ...pkg.devDependencies }
      const local = (names) => names.filter((name) => String(deps[name]).startsWith('workspace:'))
      byName.set(pkg.name, {
        name: pkg.name,
        dir,
        runtime: local(Object.keys(pkg.dependencies ?? {})),
        all: local(Object.keys(deps)),
      })
    }
  }
  return byName
}

/**
 * The packages that `targets` (names) need, dependencies first, each with the workspace packages
 * it builds against (`deps`): all of a dependency's, only the runtime ones of a target given
 * with `runtimeOnly` (an app, whose test helpers need no build to run it).
 */
export function buildOrder(byName, targets, { runtimeOnly = false } = {}) {
  const order = []
  const seen = new Set()
  const visit = (name, deps) => {
    if (seen.has(name)) return
    seen.add(name)
    for (const dep of deps) visit(dep, byName.get(dep).all)
    order.push({ ...byName.get(name), deps })
  }
  for (const name of targets) visit(name, runtimeOnly ? byName.get(name).runtime : byName.get(name).all)
  return order
}

function newestUnder(root, dir) {
  let newest = 0
  const walk = (at) => {
    for (const entry of readdirSync(join(root, at), { withFileTypes: true })) {
      if (SKIPPED.has(entry.name) || entry.name.startsWith('.')) continue
      const path = join(at, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.isFile()) newest = Math.max(newest, statSync(join(root, path)).mtimeMs)
    }
  }
  walk(dir)
  return newest
}

/** The packages of `order` whose build is missing or older than their inputs. */
export function stalePackages(order, root = ROOT) {
  const shared = Math.max(...SHARED_INPUTS.map((file) => statSync(join(root, file)).mtimeMs))
  const builtAt = new Map()
  const stale = []
  for (const pkg of order) {
    const stamp = join(root, pkg.dir, STAMP)
    const at = existsSync(stamp) ? statSync(stamp).mtimeMs : undefined
    const fresh =
      at !== undefined &&
      Math.max(shared, newestUnder(root, pkg.dir)) <= at &&
      pkg.deps.every((dep) => builtAt.has(dep) && builtAt.get(dep) <= at)
    if (fresh) builtAt.set(pkg.name, at)
    else stale.push(pkg)
  }
  return stale
}

/** Builds `packages` (two at a time, dependencies first) and stamps each; returns the exit status. */
export function buildPackages(packages, root = ROOT) {
  if (packages.length === 0) return 0
  const filters = packages.flatMap((pkg) => ['--filter', pkg.name])
  const build = spawnSync('pnpm', [...filters, '--workspace-concurrency=2', 'build'], {
    cwd: root,
    stdio: 'inherit',
  })
  if (build.status !== 0) return build.status ?? 1
  for (const pkg of packages) writeFileSync(join(root, pkg.dir, STAMP), '')
  return 0
}
