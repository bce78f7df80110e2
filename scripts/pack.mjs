// Packs every public package with `pnpm pack` (which turns `workspace:^` into `^` and the
// version), as npm would publish it, into packs/ (ignored by git) or DIR; the tarballs of an
// earlier run there are removed first, so `npm install DIR/*.tgz` installs one release.
// Usage: node scripts/pack.mjs [--out DIR]   (build first: pnpm build)
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { CommandError, run, script } from './lib/commands.mjs'
import { publicPackages, ROOT } from './lib/workspace.mjs'

/**
 * Packs `packages` into `outDir` and returns `[{ pkg, tarball }]` in the same order.
 * Fails when a package's `files` are missing (it was not built).
 */
export function packPackages(packages, outDir) {
  mkdirSync(outDir, { recursive: true })
  return packages.map((pkg) => {
    const missing = (pkg.manifest.files ?? []).filter((file) => !existsSync(join(pkg.dir, file)))
    if (missing.length > 0) {
      throw new CommandError(
        `${pkg.name}: ${missing.join(', ')} listed in "files" but missing. Build first (pnpm build); a README.md is written by hand.`,
      )
    }
    const output = run('pnpm', ['pack', '--pack-destination', outDir, '--json'], {
      cwd: pkg.dir,
      capture: true,
      quiet: true,
    })
    const tarball = JSON.parse(output.slice(output.indexOf('{'))).filename
    console.log(`packed ${pkg.name}@${pkg.version} -> ${tarball}`)
    return { pkg, tarball }
  })
}

/** The files in a tarball, without npm's `package/` folder. */
export function tarballFiles(tarball) {
  return run('tar', ['-tzf', tarball], { capture: true, quiet: true })
    .split('\n')
    .filter(Boolean)
    .map((path) => path.replace(/^package\//, ''))
}

/** The package.json inside a tarball: what npm users really get. */
export function packedManifest(tarball) {
  return JSON.parse(run('tar', ['-xzOf', tarball, 'package/package.json'], { capture: true, quiet: true }))
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  // `pnpm pack:all -- --out DIR` hands the script its `--` too (`npm run` drops it): skip it.
  const args = process.argv.slice(2)
  const { values } = parseArgs({
    args: args[0] === '--' ? args.slice(1) : args,
    options: { out: { type: 'string' } },
  })
  await script('pack', () => {
    const outDir = resolve(values.out ?? join(ROOT, 'packs'))
    console.log(`packing into ${outDir}\n`)
    const earlier = existsSync(outDir)
      ? readdirSync(outDir).filter((file) => /^keyward-.*\.tgz$/.test(file))
      : []
    for (const file of earlier) rmSync(join(outDir, file))
    if (earlier.length > 0) console.log(`removed ${earlier.length} tarball(s) of an earlier run`)
    packPackages(publicPackages(), outDir)
    console.log(`\ntarballs in ${outDir}; try them in a fresh app: npm install ${outDir}/*.tgz`)
  })
}
