// The consumer test: every public package, packed and installed with plain npm in a fresh
// project outside the workspace (scripts/lib/consumer.mjs); each fixture then runs as ESM and
// as CommonJS with the node on PATH. Usage: node scripts/consumer-test.mjs [--keep]  (build first)
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { run, script } from './lib/commands.mjs'
import { prepareConsumer } from './lib/consumer.mjs'
import { publicPackages } from './lib/workspace.mjs'

const { values } = parseArgs({ options: { keep: { type: 'boolean', default: false } } })

await script('test:consumer', () => {
  const { project, fixtures } = prepareConsumer(publicPackages())
  for (const name of fixtures) {
    for (const extension of ['mjs', 'cjs'])
      run('node', [join('out', `${name}.${extension}`)], { cwd: project })
  }
  if (values.keep) console.log(`\nconsumer project kept in ${project}`)
  else rmSync(project, { recursive: true, force: true })
})
