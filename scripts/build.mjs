// `pnpm build`: builds the packages (packages/*) whose files changed since their last successful
// build, and those built against them; an unchanged checkout builds nothing. `--all` builds every
// package whatever its state (a release does).
import { buildOrder, buildPackages, stalePackages, workspacePackages } from './lib/builds.mjs'

const byName = workspacePackages()
const packages = [...byName.values()].filter((pkg) => pkg.dir.startsWith('packages'))
const order = buildOrder(
  byName,
  packages.map((pkg) => pkg.name),
)
const toBuild = process.argv.includes('--all') ? order : stalePackages(order)
if (toBuild.length === 0) console.log('Packages up to date: nothing to build.')
process.exit(buildPackages(toBuild))
