// A process with a Keyward of its own (a pool, a change feed, a cache) on MySQL through the built
// store, for the tests of revocation across processes: it reads commands as JSON lines on stdin
// and answers each with one JSON line. Argument 1 is JSON: { url, tablePrefix, strict, boundMs }.
//   {"op":"check","key":"ak_...","projectId":"..."}  verifies the key; answers
//     { outcome: 'accepted' | error type, entries: the cache's entries }
//   {"op":"revoke","id":"..."}  deactivates the key; answers once the call returned
//   {"op":"close"}  closes the service and the store, exits
import { createInterface } from 'node:readline'
import { createKeyward } from '@keyward/core'
import { createMysqlKeyStore } from '../../dist/index.js'

const { url, tablePrefix, strict, boundMs } = JSON.parse(process.argv[2])
const store = await createMysqlKeyStore(
  { connectionString: url },
  {
    tablePrefix,
    migrate: false,
    connectionLimit: 3,
    changeFeed: { pollIntervalMs: 50, freshnessBoundMs: boundMs },
    ...(strict ? { strictRevocation: true } : {}),
  },
)
// A TTL of ten minutes: what reaches the cache before it is the change feed's doing.
const keyward = createKeyward({ store, cache: { ttlMs: 600_000 }, trackLastUsed: false })
const answer = (line) => process.stdout.write(`${JSON.stringify(line)}\n`)

for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line)
  if (command.op === 'check') {
    const outcome = await keyward
      .authenticate({ projectKey: command.key }, { scope: 'project', projectId: command.projectId })
      .then(
        () => 'accepted',
        (error) => error.type,
      )
    answer({ outcome, entries: keyward.cacheStats()?.entries ?? 0 })
  } else if (command.op === 'revoke') {
    const record = await keyward.deactivateKey(command.id)
    answer({ active: record?.active ?? null })
  } else if (command.op === 'close') {
    await keyward.close()
    await store.close()
    answer({ closed: true })
    process.exit(0)
  }
}
