// One process of the usage load test: opens the built PostgreSQL store (with its change feed and
// the verification cache), runs the verifications its plan gives it (a JSON file, argument 1;
// its index, argument 2), prints `done`, and waits. On SIGTERM or SIGINT it stops as the reference
// server does: `keyward.close()` writes the usage counts, then the store closes, then exit 0.
import { readFileSync } from 'node:fs'
import { createKeyward } from '@keyward/core'
import { createPgKeyStore } from '../../dist/pg.js'

const [planFile, index] = process.argv.slice(2)
const plan = JSON.parse(readFileSync(planFile, 'utf8'))
const store = await createPgKeyStore(
  { connectionString: plan.url },
  { schema: plan.schema, changeFeed: { connectionString: plan.url }, queryTimeoutMs: 30_000 },
)
const keyward = createKeyward({
  store,
  cache: {},
  trackLastUsed: false,
  usage: { flushIntervalSeconds: 1 },
})
const stop = () =>
  keyward
    .close()
    .then(() => store.close())
    .then(() => process.exit(0))
process.on('SIGTERM', stop)
process.on('SIGINT', stop)

for (const [k, mode] of plan.steps[Number(index)]) {
  const key = plan.keys[k]
  const projectKey = mode === 'unknown' ? plan.unknownKey : mode === 'malformed' ? 'ak_malformed' : key.key
  const projectId = mode === 'wrong' ? 'no-such-project' : key.projectId
  await keyward.authenticate({ projectKey }, { scope: 'project', projectId }).catch(() => {})
}
process.stdout.write('done\n')
