// A consumer project: a fresh folder outside the workspace where the packed tarballs are
// installed with plain npm, as a user would, and the fixtures of scripts/consumer/ are compiled.
// The consumer test runs it on Node; the runtime matrix runs the same outputs on Bun and Deno.
import { copyFileSync, cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import semver from 'semver'
import { packedManifest, packPackages } from '../pack.mjs'
import { CommandError, run, seconds, tempDir } from './commands.mjs'
import { ROOT, readJson } from './workspace.mjs'

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
  // NestJS's decorators (the @keyward/nestjs fixture); no decorator metadata is needed.
  experimentalDecorators: true,
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

/**
 * Every dependency of a packed package (`[{ pkg, tarball }]`) on a Keyward package that the
 * tarballs cannot satisfy, as sentences: npm would fetch it from the registry, which has another
 * release or none, and the test would prove nothing about this one.
 */
export function unresolvableDependencies(packed) {
  const manifests = packed.map(({ tarball }) => packedManifest(tarball))
  const versions = new Map(manifests.map((manifest) => [manifest.name, manifest.version]))
  const problems = []
  for (const manifest of manifests) {
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
      for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
        if (!dep.startsWith('@keyward/')) continue
        const version = versions.get(dep)
        if (version === undefined) {
          // An optional peer that is not packed is not installed either.
          if (field === 'peerDependencies' && manifest.peerDependenciesMeta?.[dep]?.optional) continue
          problems.push(
            `${manifest.name}@${manifest.version}: ${field}.${dep} "${range}": no tarball of ${dep}`,
          )
        } else if (semver.validRange(range) === null || !semver.satisfies(version, range)) {
          problems.push(
            `${manifest.name}@${manifest.version}: ${field}.${dep} "${range}" is not met by the tarball of ${dep}@${version}`,
          )
        }
      }
    }
  }
  return problems
}

/**
 * Every Keyward package in a consumer project's package-lock.json that npm did not take from a
 * tarball at the top of node_modules (a copy from the registry, or a second copy nested in a
 * package), as sentences.
 */
function foreignInstalls(project) {
  const lock = readJson(join(project, 'package-lock.json'))
  return Object.entries(lock.packages ?? {})
    .filter(([path]) => /(^|\/)node_modules\/@keyward\/[^/]+$/.test(path))
    .filter(
      ([path, entry]) =>
        !/^node_modules\/@keyward\/[^/]+$/.test(path) || !entry.resolved?.startsWith('file:'),
    )
    .map(
      ([path, entry]) =>
        `${path}@${entry.version} came from ${entry.resolved ?? 'a link'}, not from a tarball`,
    )
}

/** The folders above `dir` whose node_modules Node.js would search: none may exist. */
function enclosingNodeModules(dir) {
  const found = []
  for (let parent = dirname(dir); ; parent = dirname(parent)) {
    if (existsSync(join(parent, 'node_modules'))) found.push(join(parent, 'node_modules'))
    if (dirname(parent) === parent) return found
  }
}

/** Whether a package has no CommonJS entry (its exports have no require condition). */
const esmOnly = (pkg) =>
  Object.entries(pkg.manifest.exports ?? {}).some(
    ([subpath, target]) => subpath !== './package.json' && target?.require === undefined,
  )

/**
 * The smoke fixture: every package loads, with its types, and exports something. ESM-only
 * packages are loaded with import(), which CommonJS has too.
 */
function smokeFixture(packages) {
  const dual = packages.filter((pkg) => !esmOnly(pkg))
  const imports = dual.map((pkg, i) => `import * as package${i} from '${pkg.name}'`)
  const checks = dual.map(
    (pkg, i) => `assert.ok(Object.keys(package${i}).length > 0, '${pkg.name} exports nothing')`,
  )
  const dynamic = packages
    .filter(esmOnly)
    .map(
      (pkg) =>
        `  assert.ok(Object.keys(await import('${pkg.name}')).length > 0, '${pkg.name} exports nothing')`,
    )
  const names = packages.map((pkg) => pkg.name).join(', ')
  return [
    "import assert from 'node:assert/strict'",
    ...imports,
    '',
    "const format = process.argv.slice(2).join(' ') || 'unnamed'",
    ...checks,
    'async function main() {',
    ...dynamic,
    `  console.log(\`every package loads (\${format}): ${names}\`)`,
    '}',
    'main().catch((error) => {',
    '  console.error(error)',
    '  process.exit(1)',
    '})',
    '',
  ].join('\n')
}

function writeJson(path, value) {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`)
}

/**
 * Packs `packages` (or takes them `packed` already: `[{ pkg, tarball }]`), installs the tarballs
 * with plain npm in a new consumer project and compiles the fixtures:
 * scripts/consumer/FOLDER.ts for each packed package that has one, and the smoke fixture, with
 * the support file they share (scripts/consumer/support/fixture.ts).
 * Each fixture is written as NAME.mts and NAME.cts (compiled under node16 to out/NAME.mjs and
 * out/NAME.cjs) and as NAME.ts (typechecked under bundler). Returns `{ project, fixtures }`.
 * Fails when a dependency on a Keyward package is not met by the tarballs, or when npm installed a
 * Keyward package from anywhere else.
 */
export function prepareConsumer(packages, packed) {
  const project = tempDir('consumer')
  const around = enclosingNodeModules(project)
  if (around.length > 0) {
    throw new CommandError(`The consumer project ${project} would also resolve from ${around.join(', ')}.`)
  }
  let start = performance.now()
  packed ??= packPackages(packages, join(project, 'tarballs'))
  const tarballs = packed.map(({ tarball }) => tarball)
  console.log(`packed ${tarballs.length} package(s) in ${seconds(start)}\n`)
  const unresolvable = unresolvableDependencies(packed)
  if (unresolvable.length > 0) {
    throw new CommandError(`Dependencies the tarballs do not meet:\n  ${unresolvable.join('\n  ')}`)
  }

  start = performance.now()
  run('npm', ['init', '-y'], { cwd: project, capture: true })
  const install = ['install', '--no-audit', '--no-fund', '--loglevel=error']
  run('npm', [...install, ...tarballs, ...peerSpecs(packages)], { cwd: project })
  const foreign = foreignInstalls(project)
  if (foreign.length > 0) throw new CommandError(`Installed from elsewhere:\n  ${foreign.join('\n  ')}`)
  console.log(`installed in ${seconds(start)}\n`)

  const own = packages.filter((pkg) => existsSync(join(FIXTURES, `${pkg.folder}.ts`)))
  const smokeOnly = packages.filter((pkg) => !own.includes(pkg)).map((pkg) => pkg.name)
  if (smokeOnly.length > 0) console.log(`no fixture of their own, smoke only: ${smokeOnly.join(', ')}\n`)
  const fixtures = ['smoke', ...own.map((pkg) => pkg.folder)]
  // Each copy imports the shared support file of its own format: ./fixture.mjs from NAME.mts,
  // ./fixture.cjs from NAME.cts, ./fixture.js (resolved to fixture.ts by the bundler) from NAME.ts.
  for (const [extension, output] of [
    ['mts', 'mjs'],
    ['cts', 'cjs'],
    ['ts', 'js'],
  ]) {
    copyFileSync(join(FIXTURES, 'support', 'fixture.ts'), join(project, `fixture.${extension}`))
    for (const name of fixtures) {
      const source =
        name === 'smoke' ? smokeFixture(packages) : readFileSync(join(FIXTURES, `${name}.ts`), 'utf8')
      writeFileSync(
        join(project, `${name}.${extension}`),
        source.replaceAll("'./fixture.js'", `'./fixture.${output}'`),
      )
    }
  }
  // A fixture's folder (scripts/consumer/NAME/) holds files it runs in the project, such as the
  // tests of a store of the consumer's own; they are typechecked under bundler too.
  const folders = own.filter((pkg) => existsSync(join(FIXTURES, pkg.folder)))
  for (const pkg of folders)
    cpSync(join(FIXTURES, pkg.folder), join(project, pkg.folder), { recursive: true })
  const extraFiles = folders.flatMap((pkg) =>
    readdirSync(join(FIXTURES, pkg.folder)).map((file) => `${pkg.folder}/${file}`),
  )
  // The ESM and the CommonJS copies compile as two programs: the adapters augment the framework's
  // request type in each build, and one program holding both builds would declare it twice.
  for (const extension of ['mts', 'cts']) {
    writeJson(join(project, `tsconfig.node16-${extension}.json`), {
      compilerOptions: { ...COMPILER_OPTIONS, module: 'node16', moduleResolution: 'node16', outDir: 'out' },
      files: fixtures.map((name) => `${name}.${extension}`),
    })
  }
  writeJson(join(project, 'tsconfig.bundler.json'), {
    compilerOptions: { ...COMPILER_OPTIONS, module: 'esnext', moduleResolution: 'bundler', noEmit: true },
    files: [...fixtures.map((name) => `${name}.ts`), ...extraFiles],
  })

  start = performance.now()
  const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc')
  run('node', [tsc, '-p', 'tsconfig.node16-mts.json'], { cwd: project })
  run('node', [tsc, '-p', 'tsconfig.node16-cts.json'], { cwd: project })
  run('node', [tsc, '-p', 'tsconfig.bundler.json'], { cwd: project })
  console.log(`compiled under node16, typechecked under bundler in ${seconds(start)}\n`)
  return { project, fixtures }
}

/**
 * Runs every compiled fixture of a consumer project, ESM then CommonJS, with `command` (node, bun,
 * deno) and its `args`; the fixture prints the format and `label` it ran under.
 */
export function runFixtures({ project, fixtures }, command, { args = [], label = [] } = {}) {
  for (const name of fixtures) {
    for (const [extension, format] of [
      ['mjs', 'ESM'],
      ['cjs', 'CommonJS'],
    ]) {
      run(command, [...args, join('out', `${name}.${extension}`), format, ...label], { cwd: project })
    }
  }
}
