// A release without publishing: copies the working tree (tracked files and new, unignored ones,
// so pending changesets count) to a temporary folder, installs it offline, applies the pending
// changesets there (`changeset version`), builds, and packs every public package. The tarballs
// and the new CHANGELOG.md files land in the output folder; the working tree is not touched.
// Usage: node scripts/release-dry.mjs [--out DIR]
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { CommandError, run, script, tempDir } from './lib/commands.mjs'
import { publicPackages, ROOT } from './lib/workspace.mjs'
import { packPackages } from './pack.mjs'

const { values } = parseArgs({ options: { out: { type: 'string' } } })

/** Copies the files git knows of (tracked, or new and not ignored) from the repository to `target`. */
function copyWorkingTree(target) {
  const listed = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    capture: true,
    quiet: true,
  })
  const files = listed.split('\0').filter((file) => file && existsSync(join(ROOT, file)))
  for (const file of files) {
    mkdirSync(dirname(join(target, file)), { recursive: true })
    cpSync(join(ROOT, file), join(target, file))
  }
  return files.length
}

await script('release:dry', () => {
  const outDir = values.out ? resolve(values.out) : tempDir('release-dry')
  const copy = tempDir('release-tree')
  console.log(`copied ${copyWorkingTree(copy)} files to ${copy}\n`)
  const before = new Map(publicPackages(copy).map((pkg) => [pkg.name, pkg.version]))

  run('pnpm', ['install', '--offline', '--frozen-lockfile', '--reporter=silent'], { cwd: copy })
  run('pnpm', ['exec', 'changeset', 'version'], { cwd: copy })
  run('pnpm', ['build'], { cwd: copy })

  const packages = publicPackages(copy)
  const versions = new Set(packages.map((pkg) => pkg.version))
  if (versions.size > 1) {
    throw new CommandError(`The fixed group should give one version, got ${[...versions].join(', ')}.`)
  }
  const packed = packPackages(packages, join(outDir, 'tarballs'))
  console.log('\n| package | version | changelog |\n| --- | --- | --- |')
  for (const { pkg } of packed) {
    const changelog = join(pkg.dir, 'CHANGELOG.md')
    let saved = '(none: no pending changeset)'
    if (existsSync(changelog)) {
      saved = join(outDir, 'changelogs', `${pkg.folder}.md`)
      mkdirSync(dirname(saved), { recursive: true })
      cpSync(changelog, saved)
    }
    console.log(`| ${pkg.name} | ${before.get(pkg.name)} -> ${pkg.version} | ${saved} |`)
  }
  rmSync(copy, { recursive: true, force: true })
  console.log(`\nNothing was published. Tarballs and changelogs are in ${outDir}`)
})
