// A release without publishing: copies the working tree (tracked files and new, unignored ones,
// so pending changesets count) to a temporary folder, installs it offline, applies the pending
// changesets there (`changeset version`), builds, and packs every public package. The release
// must bump by what the changesets ask (a minor is no major because of a peer), and its tarballs
// must pass the manifest check and the consumer test. The tarballs and the new CHANGELOG.md files
// land in the output folder; the working tree is not touched.
// A changeset that says `major` fails it unless `--allow-major` is given: until the API is
// declared stable, breaking changes are minor (0.x), and a stray major would make 1.0.0.
// Usage: node scripts/release-dry.mjs [--out DIR] [--allow-major]
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import semver from 'semver'
import { packedProblems } from './check-packages.mjs'
import { CommandError, run, script, tempDir } from './lib/commands.mjs'
import { prepareConsumer, runFixtures } from './lib/consumer.mjs'
import { publicPackages, ROOT } from './lib/workspace.mjs'
import { packPackages } from './pack.mjs'

const { values } = parseArgs({
  options: { out: { type: 'string' }, 'allow-major': { type: 'boolean', default: false } },
})

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

const BUMPS = ['patch', 'minor', 'major']

/**
 * The bump the pending changesets in `root` ask for the public packages (`before`: name ->
 * version): the largest type any of them names in its front matter, or undefined when none does.
 */
function askedBump(root, before) {
  const folder = join(root, '.changeset')
  const types = readdirSync(folder)
    .filter((file) => file.endsWith('.md') && file !== 'README.md')
    .flatMap((file) => {
      const front = readFileSync(join(folder, file), 'utf8').match(/^---\r?\n([\s\S]*?)\r?\n---/)
      return (front?.[1] ?? '')
        .split(/\r?\n/)
        .map((line) => line.match(/^\s*["']?([^"']+)["']?\s*:\s*(\w+)\s*$/))
    })
    .filter((entry) => entry && before.has(entry[1]))
    .map((entry) => BUMPS.indexOf(entry[2]))
  return types.length > 0 ? BUMPS[Math.max(...types)] : undefined
}

await script('release:dry', () => {
  const outDir = values.out ? resolve(values.out) : tempDir('release-dry')
  const copy = tempDir('release-tree')
  console.log(`copied ${copyWorkingTree(copy)} files to ${copy}\n`)
  const before = new Map(publicPackages(copy).map((pkg) => [pkg.name, pkg.version]))

  const asked = askedBump(copy, before)
  if (asked === 'major' && !values['allow-major']) {
    const major = semver.inc([...before.values()][0], 'major')
    throw new CommandError(
      `A pending changeset says major, which would make ${major} of every package: make it minor, or pass --allow-major for a deliberate major release.`,
    )
  }
  run('pnpm', ['install', '--offline', '--frozen-lockfile', '--reporter=silent'], { cwd: copy })
  run('pnpm', ['exec', 'changeset', 'version'], { cwd: copy })

  const packages = publicPackages(copy)
  const versions = new Set(packages.map((pkg) => pkg.version))
  if (versions.size > 1) {
    throw new CommandError(`The fixed group should give one version, got ${[...versions].join(', ')}.`)
  }
  const wrong = packages.filter((pkg) => asked && pkg.version !== semver.inc(before.get(pkg.name), asked))
  if (wrong.length > 0) {
    const got = wrong.map((pkg) => `${pkg.name} ${before.get(pkg.name)} -> ${pkg.version}`)
    throw new CommandError(`The changesets ask for a ${asked} release, but:\n  ${got.join('\n  ')}`)
  }
  run('pnpm', ['build'], { cwd: copy })
  const packed = packPackages(packages, join(outDir, 'tarballs'))
  const problems = packedProblems(packed).flatMap(({ pkg, problems }) =>
    problems.map((problem) => `${pkg.name}: ${problem}`),
  )
  if (problems.length > 0) throw new CommandError(`Packed manifests:\n  ${problems.join('\n  ')}`)
  console.log('\nThe consumer test, on these tarballs:')
  const consumer = prepareConsumer(packages, packed)
  runFixtures(consumer, 'node')
  rmSync(consumer.project, { recursive: true, force: true })
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
