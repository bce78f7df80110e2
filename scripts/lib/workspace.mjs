// The publishable packages of the workspace: every packages/*/package.json that is not private.
// Release, pack, consumer and matrix scripts all start from this list, so a new package is
// picked up without naming it anywhere.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** Reads a JSON file. */
export function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'))
}

/**
 * Every public package of the workspace at `root` as `{ name, version, folder, dir, manifest }`,
 * dependencies before their dependents (core first), then by name.
 */
export function publicPackages(root = ROOT) {
  const packagesDir = join(root, 'packages')
  const found = readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(packagesDir, entry.name, 'package.json')))
    .map((entry) => {
      const dir = join(packagesDir, entry.name)
      const manifest = readJson(join(dir, 'package.json'))
      return { name: manifest.name, version: manifest.version, folder: entry.name, dir, manifest }
    })
    .filter((pkg) => pkg.manifest.private !== true)
    .sort((a, b) => a.name.localeCompare(b.name))

  const byName = new Map(found.map((pkg) => [pkg.name, pkg]))
  const ordered = []
  const visit = (pkg, path = []) => {
    if (ordered.includes(pkg)) return
    if (path.includes(pkg))
      throw new Error(`Dependency cycle: ${[...path, pkg].map((p) => p.name).join(' -> ')}`)
    for (const dep of Object.keys({ ...pkg.manifest.dependencies, ...pkg.manifest.peerDependencies })) {
      const inner = byName.get(dep)
      if (inner) visit(inner, [...path, pkg])
    }
    ordered.push(pkg)
  }
  for (const pkg of found) visit(pkg)
  return ordered
}

/** The public package with this name, or undefined. */
export function findPackage(packages, name) {
  return packages.find((pkg) => pkg.name === name)
}
