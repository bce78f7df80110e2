// The consumer test: packs every public package, installs the tarballs with plain npm into a
// fresh project outside the workspace, then for each fixture in scripts/consumer/ whose
// package was packed, compiles it as ESM and as CommonJS under `module: node16`, runs both
// with the node on PATH, and typechecks it under `moduleResolution: bundler`. A smoke fixture
// imports every public package, so a package without a fixture of its own is still covered.
// Usage: node scripts/consumer-test.mjs [--keep]   (build first: pnpm build)
import { copyFileSync, existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { run, script, seconds, tempDir } from './lib/commands.mjs'
import { publicPackages, ROOT, readJson } from './lib/workspace.mjs'
import { packPackages } from './pack.mjs'

const TYPESCRIPT = 'typescript@5.9.3'
const NODE_TYPES = '@types/node@20'
const FIXTURES = join(ROOT, 'scripts', 'consumer')

const COMPILER_OPTIONS = {
  target: 'es2022',
  lib: ['es2022'],
  strict: true,
  esModuleInterop: true,
  skipLibCheck: false,
  types: ['node'],
}

/**
 * What a user installs besides the tarballs: each package's peer dependencies (at the version
 * the workspace tests with) and their `@types` packages.
 */
function peerSpecs(packages) {
  const specs = new Set([TYPESCRIPT, NODE_TYPES])
  for (const { manifest } of packages) {
    const dev = manifest.devDependencies ?? {}
    for (const [peer, range] of Object.entries(manifest.peerDependencies ?? {})) {
      if (peer.startsWith('@keyward/')) continue
      specs.add(`${peer}@${dev[peer] ?? range}`)
      const types = `@types/${peer.replace(/^@(.*)\//, '$1__')}`
      if (dev[types]) specs.add(`${types}@${dev[types]}`)
    }
  }
  return [...specs]
}

/** The smoke fixture: every public package loads, with its types, and exports something. */
function smokeFixture(packages) {
  const lines = ["import assert from 'node:assert/strict'"]
  packages.forEach((pkg, i) => lines.push(`import * as package${i} from '${pkg.name}'`))
  lines.push('', `const format = typeof module === 'object' ? 'CommonJS' : 'ESM'`)
  packages.forEach((pkg, i) => {
    lines.push(`assert.ok(Object.keys(package${i}).length > 0, '${pkg.name} exports nothing')`)
  })
  lines.push(
    `console.log(\`every package loads (\${format}): ${packages.map((p) => p.name).join(', ')}\`)`,
    '',
  )
  return lines.join('\n')
}

function writeJson(path, value) {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`)
}

async function consumerTest({ keep }) {
  const packages = publicPackages()
  const project = tempDir('consumer')
  let start = performance.now()
  const tarballs = packPackages(packages, join(project, 'tarballs')).map(({ tarball }) => tarball)
  console.log(`packed ${tarballs.length} package(s) in ${seconds(start)}\n`)

  start = performance.now()
  run('npm', ['init', '-y'], { cwd: project, capture: true })
  run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs, ...peerSpecs(packages)],
    {
      cwd: project,
    },
  )
  console.log(`installed in ${seconds(start)}\n`)

  // Fixtures: core's always, an adapter's when its package exists, and the smoke fixture.
  const fixtures = packages
    .map((pkg) => pkg.folder)
    .filter((folder) => existsSync(join(FIXTURES, `${folder}.ts`)))
  const withoutFixture = packages.filter((pkg) => !fixtures.includes(pkg.folder)).map((pkg) => pkg.name)
  if (withoutFixture.length > 0)
    console.log(`no fixture of their own (smoke only): ${withoutFixture.join(', ')}`)
  const sources = { smoke: smokeFixture(packages) }
  for (const name of fixtures) sources[name] = null
  for (const [name, source] of Object.entries(sources)) {
    for (const extension of ['mts', 'cts', 'ts']) {
      const target = join(project, `${name}.${extension}`)
      if (source === null) copyFileSync(join(FIXTURES, `${name}.ts`), target)
      else writeFileSync(target, source)
    }
  }
  const names = Object.keys(sources)
  writeJson(join(project, 'tsconfig.node16.json'), {
    compilerOptions: { ...COMPILER_OPTIONS, module: 'node16', moduleResolution: 'node16', outDir: 'out' },
    files: names.flatMap((name) => [`${name}.mts`, `${name}.cts`]),
  })
  writeJson(join(project, 'tsconfig.bundler.json'), {
    compilerOptions: { ...COMPILER_OPTIONS, module: 'esnext', moduleResolution: 'bundler', noEmit: true },
    files: names.map((name) => `${name}.ts`),
  })

  start = performance.now()
  const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc')
  run('node', [tsc, '-p', 'tsconfig.node16.json'], { cwd: project })
  run('node', [tsc, '-p', 'tsconfig.bundler.json'], { cwd: project })
  console.log(`typechecked under node16 and bundler in ${seconds(start)}\n`)

  for (const name of names) {
    for (const extension of ['mjs', 'cjs'])
      run('node', [join('out', `${name}.${extension}`)], { cwd: project })
  }

  const installed = readJson(join(project, 'node_modules', '@keyward', 'core', 'package.json'))
  console.log(`\nconsumer project: ${project} (@keyward/core ${installed.version} from its tarball)`)
  if (!keep) rmSync(project, { recursive: true, force: true })
}

const { values } = parseArgs({ options: { keep: { type: 'boolean', default: false } } })
await script('test:consumer', () => consumerTest(values))
