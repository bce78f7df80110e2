// The consumer test: every public package, packed and installed with plain npm in a fresh
// project outside the workspace (scripts/lib/consumer.mjs); each fixture then runs as ESM and
// as CommonJS with the node on PATH. Usage: node scripts/consumer-test.mjs [--keep]  (build first)
import { rmSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { script } from './lib/commands.mjs'
import { prepareConsumer, runFixtures } from './lib/consumer.mjs'
import { publicPackages } from './lib/workspace.mjs'

const { values } = parseArgs({ options: { keep: { type: 'boolean', default: false } } })

await script('test:consumer', () => {
  const consumer = prepareConsumer(publicPackages())
  runFixtures(consumer, 'node')
  if (values.keep) console.log(`\nconsumer project kept in ${consumer.project}`)
  else rmSync(consumer.project, { recursive: true, force: true })
})
