// The runtime matrix. Node 22 and 24 (the `node@22` / `node@24` packages of the npm registry)
// run the test suites of every package (packages/*: the code users run on them), but for the
// database conformance suites listed in ONCE_ON_NODE_20; the examples'
// suites (the reference server, the framework examples, the console in a browser) run on Node 20,
// in `pnpm test`. Bun and Deno (their `bun` / `deno` npm packages) run the test suites
// of core and of the Hono and fetch adapters (vitest itself on that runtime, its workers too, which
// a test checks; the Web Crypto hashing path included), then the consumer fixtures of the three
// against the packed tarballs, and print which SHA-256 path core takes by default. Runtimes are installed
// once into a cache outside the repository (KEYWARD_RUNTIMES_DIR, default ~/.cache/keyward-runtimes).
// Usage: node scripts/node-matrix.mjs [--only node22,node24,bun,deno] [--refresh]  (build first)
// `--install` only installs the runtimes into the cache (CI does it while it builds and tests).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { CommandError, run, script, seconds, tempDir } from './lib/commands.mjs'
import { prepareConsumer, runFixtures } from './lib/consumer.mjs'
import { publicPackages, ROOT } from './lib/workspace.mjs'

const RUNTIMES = {
  node22: { label: 'Node 22', spec: 'node@22', bin: 'node', job: 'suite' },
  node24: { label: 'Node 24', spec: 'node@24', bin: 'node', job: 'suite' },
  // Bun and Deno are checked when their npm packages install here; when not, the table says why.
  // `--bun` makes Bun run vitest's `#!/usr/bin/env node` entry, and so its workers, itself.
  bun: { label: 'Bun', spec: 'bun', bin: 'bun', job: 'runtime', exec: [], vitest: ['--bun'], optional: true },
  deno: {
    label: 'Deno',
    spec: 'deno',
    bin: 'deno',
    job: 'runtime',
    exec: ['run', '--allow-all'],
    vitest: ['run', '--allow-all'],
    optional: true,
  },
}
// The packages that must run on every runtime (with the @keyward packages they depend on), and
// their test suites, which Bun and Deno run.
const EVERY_RUNTIME = ['@keyward/core', '@keyward/hono', '@keyward/fetch']
const EVERY_RUNTIME_TESTS = ['packages/core/src', 'packages/hono/src', 'packages/fetch/src']
// What every Node.js version runs: the packages' suites, except those that repeat the store's
// conformance against the database server through other drivers, a pooler or several processes.
// What they check is the SQL and the server, the same on every Node.js version: they run once, on
// Node 20, in `pnpm test`.
const EVERY_NODE_TESTS = ['packages/']
const ONCE_ON_NODE_20 = [
  'packages/postgres/src/app-drivers.test.ts',
  'packages/postgres/src/credits.test.ts',
  'packages/postgres/src/pgbouncer.test.ts',
  'packages/cli/src/store.test.ts',
  // better-sqlite3's native binding is built for the Node.js that installed it (Node 20 here):
  // another version cannot load it. Its users install it under their own Node.js. The CLI's
  // suites that open a SQLite file with it run once too.
  'packages/sqlite/**',
  'packages/cli/src/commands/schema-source.test.ts',
  'packages/cli/src/commands/doctor-sql.test.ts',
]

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: Object.keys(RUNTIMES).join(',') },
    refresh: { type: 'boolean', default: false },
    install: { type: 'boolean', default: false },
  },
})
const cache = process.env.KEYWARD_RUNTIMES_DIR ?? join(homedir(), '.cache', 'keyward-runtimes')

/** Installs a runtime's npm package into the cache (once) and returns its binary and version. */
function install(id, runtime) {
  const dir = join(cache, id)
  const bin = join(dir, 'node_modules', '.bin', runtime.bin)
  if (values.refresh || !existsSync(bin)) {
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'package.json'), '{ "private": true }\n')
    run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', runtime.spec], { cwd: dir })
  }
  const output = run(bin, ['--version'], { capture: true, quiet: true })
  return { bin, version: output.match(/\d+\.\d+\.\d+/)?.[0] ?? output.trim() }
}

/**
 * Runs vitest with `bin` (and its `args`), with the runtime's directory first on PATH, on `files`
 * (default: the whole suite); returns what passed. KEYWARD_TEST_RUNTIME names the runtime to the
 * suite, whose runtime test fails if the tests ran anywhere else.
 */
function runSuite(id, bin, { args = [], files = [], exclude = [] } = {}) {
  const report = join(tempDir('matrix-report'), 'report.json')
  const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs')
  const path = `${dirname(bin)}${delimiter}${process.env.PATH}`
  const runtime = id.replace(/\d+$/, '')
  let passed = 0
  let skipped = 0
  try {
    run(
      bin,
      [
        ...args,
        vitest,
        'run',
        ...files,
        ...exclude.map((file) => `--exclude=${file}`),
        '--reporter=default',
        '--reporter=json',
        `--outputFile.json=${report}`,
      ],
      { cwd: ROOT, env: { PATH: path, KEYWARD_TEST_RUNTIME: runtime } },
    )
  } finally {
    if (existsSync(report)) {
      const counts = JSON.parse(readFileSync(report, 'utf8'))
      passed = counts.numPassedTests
      skipped = counts.numPendingTests + counts.numTodoTests
      console.log(`tests: ${counts.numPassedTests} passed, ${counts.numFailedTests} failed`)
    }
    rmSync(dirname(report), { recursive: true, force: true })
  }
  const what =
    (files.length === 0 ? 'test suite' : `test suites of ${files.join(', ')}`) +
    (exclude.length === 0 ? '' : ` (but ${exclude.length} files, which run on Node 20 only)`)
  return `${what}: ${passed} tests pass${skipped > 0 ? `, ${skipped} skipped` : ''}`
}

/** Runs the consumer fixtures' ESM and CommonJS outputs, and the digest check, on Bun or Deno. */
function runOnRuntime(runtime, bin, version, consumer) {
  runFixtures(consumer, bin, { args: runtime.exec, label: ['on', runtime.label, version] })
  const digest = run(bin, [...runtime.exec, join('scripts', 'runtime', 'digest-path.ts')], {
    cwd: ROOT,
    capture: true,
  }).trim()
  console.log(digest)
  return `fixtures ${consumer.fixtures.join(', ')} pass as ESM and CommonJS; ${digest}`
}

if (values.install) {
  await script('test:matrix --install', () => {
    for (const id of values.only.split(',').filter(Boolean)) {
      if (!RUNTIMES[id]) throw new CommandError(`Unknown runtime: ${id}.`)
      try {
        const { version } = install(id, RUNTIMES[id])
        console.log(`${RUNTIMES[id].label} ${version}`)
      } catch (error) {
        // An optional runtime that does not install is reported by the run itself.
        if (!(error instanceof CommandError) || !RUNTIMES[id].optional) throw error
      }
    }
  })
  process.exit(0)
}

await script('test:matrix', () => {
  const wanted = values.only.split(',').filter(Boolean)
  const unknown = wanted.filter((id) => !RUNTIMES[id])
  if (unknown.length > 0) throw new CommandError(`Unknown runtime(s): ${unknown.join(', ')}.`)
  let consumer
  const rows = []
  for (const id of wanted) {
    const runtime = RUNTIMES[id]
    console.log(`\n## ${runtime.label}\n`)
    const start = performance.now()
    let installed
    try {
      installed = install(id, runtime)
    } catch (error) {
      if (!(error instanceof CommandError) || !runtime.optional) throw error
      rows.push([runtime.label, '-', `not installed: ${error.message.split('\n')[0]}`, seconds(start)])
      continue
    }
    let result
    if (runtime.job === 'suite') {
      result = runSuite(id, installed.bin, { files: EVERY_NODE_TESTS, exclude: ONCE_ON_NODE_20 })
    } else {
      const suites = runSuite(id, installed.bin, { args: runtime.vitest, files: EVERY_RUNTIME_TESTS })
      if (!consumer) {
        const packages = publicPackages()
        const needed = packages.filter((pkg) => EVERY_RUNTIME.includes(pkg.name))
        const deps = (pkg) => Object.keys({ ...pkg.manifest.dependencies, ...pkg.manifest.peerDependencies })
        consumer = prepareConsumer(
          packages.filter((pkg) => needed.some((n) => n === pkg || deps(n).includes(pkg.name))),
        )
      }
      result = `${suites}; ${runOnRuntime(runtime, installed.bin, installed.version, consumer)}`
    }
    rows.push([runtime.label, installed.version, result, seconds(start)])
  }
  if (consumer) rmSync(consumer.project, { recursive: true, force: true })
  console.log('\n| runtime | version | result | time |\n| --- | --- | --- | --- |')
  for (const row of rows) console.log(`| ${row.join(' | ')} |`)
})
