// Checks every public package as it would be published: packs it, then checks the packed
// manifest (the fields every Keyward package must have), runs publint (strict) and
// @arethetypeswrong/cli on the tarball. Usage: node scripts/check-packages.mjs  (build first)
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { CommandError, run, script, tempDir } from './lib/commands.mjs'
import { publicPackages, ROOT } from './lib/workspace.mjs'
import { packedManifest, packPackages, tarballFiles } from './pack.mjs'

const bin = (name) => join(ROOT, 'node_modules', '.bin', name)

/**
 * Every problem of a packed manifest against Keyward's package shape, as sentences. `versions`
 * maps each public package's name to the version packed with it: a dependency on one of them must
 * be the caret range of that version (what `workspace:^` packs to), never an exact pin that
 * leaves a user with two copies of core.
 */
export function manifestProblems(manifest, files, folder, repositoryUrl, versions = new Map()) {
  const problems = []
  const need = (ok, text) => {
    if (!ok) problems.push(text)
  }
  need(typeof manifest.description === 'string' && manifest.description.length > 0, 'no "description"')
  need(manifest.license === 'MIT', '"license" is not MIT')
  need(manifest.sideEffects === false, '"sideEffects" is not false')
  need(typeof manifest.engines?.node === 'string', 'no "engines.node"')
  need(Array.isArray(manifest.files) && manifest.files.length > 0, 'no "files" list')
  const repo = manifest.repository
  if (typeof repo !== 'object' || repo?.type !== 'git' || typeof repo?.url !== 'string') {
    problems.push(`no "repository": { "type": "git", "url", "directory": "packages/${folder}" }`)
  } else {
    need(repo.directory === `packages/${folder}`, `"repository.directory" is not "packages/${folder}"`)
    need(
      repositoryUrl === undefined || repo.url === repositoryUrl,
      `"repository.url" differs from the other packages' (${repositoryUrl})`,
    )
  }
  need(files.includes('README.md'), 'README.md is not in the tarball')
  need(!files.some((file) => /\.test\.[cm]?[jt]s$/.test(file)), 'the tarball contains test files')
  const exportsMap = manifest.exports
  need(typeof exportsMap === 'object' && exportsMap?.['.'] !== undefined, 'no "exports" with "."')
  for (const [subpath, target] of Object.entries(exportsMap ?? {})) {
    if (subpath === './package.json') continue
    // An ESM-only package (no require condition anywhere, see attwProfile) needs types for import.
    for (const condition of attwProfile(manifest) === 'esm-only' ? ['import'] : ['import', 'require']) {
      need(
        typeof target?.[condition]?.types === 'string',
        `exports["${subpath}"].${condition} has no "types" (each of import and require needs its own)`,
      )
    }
  }
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      const version = versions.get(dep)
      if (String(range).startsWith('workspace:')) problems.push(`${field}.${dep} is still "${range}"`)
      else if (version !== undefined && range !== `^${version}`)
        problems.push(
          `${field}.${dep} is "${range}", not "^${version}" (write "workspace:^" in package.json)`,
        )
    }
  }
  return problems
}

/** attw's profile: "strict" for dual packages, "esm-only" for packages without a require condition. */
function attwProfile(manifest) {
  const targets = Object.entries(manifest.exports ?? {}).filter(([subpath]) => subpath !== './package.json')
  return targets.every(([, target]) => target?.require !== undefined) ? 'strict' : 'esm-only'
}

/**
 * The manifest problems of each packed package (`[{ pkg, tarball }]`, all of one release), as
 * `[{ pkg, tarball, problems }]`.
 */
export function packedProblems(packed) {
  const repositoryUrl = packed[0]?.pkg.manifest.repository?.url
  const versions = new Map(packed.map(({ pkg }) => [pkg.name, pkg.version]))
  return packed.map(({ pkg, tarball }) => ({
    pkg,
    tarball,
    problems: manifestProblems(
      packedManifest(tarball),
      tarballFiles(tarball),
      pkg.folder,
      repositoryUrl,
      versions,
    ),
  }))
}

function checkPackages() {
  const outDir = tempDir('check-packs')
  const packed = packPackages(publicPackages(), outDir)
  const failures = []
  for (const { pkg, tarball, problems } of packedProblems(packed)) {
    console.log(`\n## ${pkg.name}`)
    for (const problem of problems) console.log(`manifest: ${problem}`)
    if (problems.length === 0) console.log('manifest: ok')
    else failures.push(`${pkg.name}: manifest`)
    for (const [tool, args] of [
      ['publint', ['--strict', tarball]],
      ['attw', ['--profile', attwProfile(pkg.manifest), '--format', 'table', '--no-emoji', tarball]],
    ]) {
      try {
        run(bin(tool), args)
      } catch (error) {
        if (!(error instanceof CommandError)) throw error
        failures.push(`${pkg.name}: ${tool}`)
      }
    }
  }
  if (failures.length > 0) throw new CommandError(`Failed checks:\n  ${failures.join('\n  ')}`)
  rmSync(outDir, { recursive: true, force: true })
  console.log(`\n${packed.length} package(s) pass the manifest check, publint and attw.`)
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await script('check:packages', checkPackages)
