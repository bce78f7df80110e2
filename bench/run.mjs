// Runs every bench/*.bench.mjs (or those named on the command line) in its own process,
// one after another, so that one suite's garbage and JIT state never touch another's numbers.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const dir = fileURLToPath(new URL('.', import.meta.url))
const wanted = process.argv.slice(2)
const suites = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace('.bench.mjs', '')))
  .sort()

if (suites.length === 0) {
  console.error(`No benchmark matches ${wanted.join(', ')}.`)
  process.exit(1)
}
for (const suite of suites) {
  console.log(`\n## ${suite.replace('.bench.mjs', '')}\n`)
  const { status } = spawnSync(process.execPath, ['--expose-gc', suite], { cwd: dir, stdio: 'inherit' })
  if (status !== 0) process.exit(status ?? 1)
}
