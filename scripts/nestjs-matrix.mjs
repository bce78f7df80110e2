// NestJS majors beside the one in packages/nestjs's dev dependencies (11, which `pnpm test` runs):
// for each other major of the peer range, its @nestjs packages (common, core, platform-express,
// platform-fastify) are installed by npm into a folder of their own, as a user's app would get
// them, once into a cache outside the repository (KEYWARD_RUNTIMES_DIR, default
// ~/.cache/keyward-runtimes). Then the adapter's sources and tests are type-checked against that
// major's types, and its test suite runs on it: vitest.nestjs.config.ts resolves @nestjs/* to
// that folder, so the suite's code and Nest's own platform packages share one copy of each.
// Why a folder of its own rather than pnpm aliases of the other major beside the dev dependencies:
// Nest's platform packages import @nestjs/common and @nestjs/core by name, so an aliased copy
// would load the other major's core beside its own; npm installs one consistent set, as a user's
// app gets it, and the suite's code needs no parameter.
// Usage: node scripts/nestjs-matrix.mjs [--only 12] [--refresh]  (the tests run on the sources)
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { CommandError, run, script, seconds, tempDir } from './lib/commands.mjs'
import { ROOT } from './lib/workspace.mjs'

// The majors of the peer range that the dev dependencies do not pin.
const MAJORS = ['12']
const PACKAGES = ['common', 'core', 'platform-express', 'platform-fastify']

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: MAJORS.join(',') },
    refresh: { type: 'boolean', default: false },
  },
})
const cache = process.env.KEYWARD_RUNTIMES_DIR ?? join(homedir(), '.cache', 'keyward-runtimes')

/** Installs NestJS `major` into the cache (once) and returns its folder and installed versions. */
function install(major) {
  const dir = join(cache, `nestjs${major}`)
  const manifest = JSON.parse(readFileSync(join(ROOT, 'packages', 'nestjs', 'package.json'), 'utf8'))
  const marker = join(dir, 'node_modules', '@nestjs', 'platform-fastify', 'package.json')
  if (values.refresh || !existsSync(marker)) {
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'package.json'), '{ "private": true }\n')
    const others = ['reflect-metadata', 'rxjs'].map((name) => `${name}@${manifest.peerDependencies[name]}`)
    const nest = PACKAGES.map((name) => `@nestjs/${name}@^${major}.0.0`)
    run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...nest, ...others], { cwd: dir })
  }
  const versions = PACKAGES.map((name) => {
    const { version } = JSON.parse(
      readFileSync(join(dir, 'node_modules', '@nestjs', name, 'package.json'), 'utf8'),
    )
    return `${name} ${version}`
  })
  return { dir, versions }
}

/** Type-checks packages/nestjs/src (its tests too) with @nestjs/* resolved to `dir`. */
function typecheck(dir) {
  const config = join(tempDir('nestjs-tsconfig'), 'tsconfig.json')
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.tests.json'),
      compilerOptions: {
        noEmit: true,
        baseUrl: ROOT,
        typeRoots: [join(ROOT, 'node_modules', '@types')],
        paths: {
          '@keyward/*': ['./packages/*/src/index.ts'],
          '@nestjs/*': [join(dir, 'node_modules', '@nestjs', '*')],
        },
      },
      // Core's sources come with their declarations of the platform they assume.
      include: [join(ROOT, 'packages', 'nestjs', 'src'), join(ROOT, 'packages', '*', 'src', '**', '*.d.ts')],
    }),
  )
  try {
    run(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', config], { cwd: ROOT })
  } finally {
    rmSync(join(config, '..'), { recursive: true, force: true })
  }
}

/** Runs packages/nestjs's suite on NestJS `major`, in `dir`; returns how many tests passed. */
function test(major, dir) {
  const report = join(tempDir('nestjs-report'), 'report.json')
  try {
    run(
      join(ROOT, 'node_modules', '.bin', 'vitest'),
      [
        'run',
        '--config',
        'vitest.nestjs.config.ts',
        '--reporter=default',
        '--reporter=json',
        `--outputFile.json=${report}`,
      ],
      { cwd: ROOT, env: { KEYWARD_NESTJS_DIR: dir, KEYWARD_NESTJS_MAJOR: major } },
    )
    const counts = JSON.parse(readFileSync(report, 'utf8'))
    if (counts.numPassedTests === 0) throw new CommandError('No test of packages/nestjs ran.')
    return counts.numPassedTests
  } finally {
    rmSync(join(report, '..'), { recursive: true, force: true })
  }
}

await script('nestjs-matrix', () => {
  const rows = []
  for (const major of values.only.split(',').filter(Boolean)) {
    if (!MAJORS.includes(major)) throw new CommandError(`Not a NestJS major of the matrix: ${major}.`)
    console.log(`\n## NestJS ${major}\n`)
    const start = performance.now()
    const { dir, versions } = install(major)
    typecheck(dir)
    const passed = test(major, dir)
    rows.push([`NestJS ${major}`, versions.join(', '), `types check; ${passed} tests pass`, seconds(start)])
  }
  console.log('\n| NestJS | packages | result | time |\n| --- | --- | --- | --- |')
  for (const row of rows) console.log(`| ${row.join(' | ')} |`)
})
