// A process with a Keyward of its own (a pool, a change feed, a cache) on PostgreSQL through the
// built store, for the tests of roles across processes: it reads commands as JSON lines on stdin
// and answers each with one JSON line. Argument 1 is JSON: { url, schema, strict, permissions }.
//   {"op":"check","key":"ak_...","permissions":"reports:read"}  verifies the key for the query;
//     answers { outcome: 'accepted' | error type, entries: the cache's entries }
//   {"op":"updateRole","id":"...","permissions":[...]}  changes the role; answers once it returned
//   {"op":"close"}  closes the service and the store, exits
import { createInterface } from 'node:readline'
import { createKeyward } from '@keyward/core'
import { createPgKeyStore } from '../../dist/pg.js'

const { url, schema, strict, permissions } = JSON.parse(process.argv[2])
const store = await createPgKeyStore(
  { connectionString: url, poolConfig: { max: 3 } },
  {
    schema,
    changeFeed: { reconnectMinMs: 20 },
    ...(strict ? { strictRevocation: { boundMs: 250 } } : {}),
  },
)
// A TTL of ten minutes: what reaches the cache before it is the change feed's doing.
const keyward = createKeyward({ store, cache: { ttlMs: 600_000 }, permissions, trackLastUsed: false })
const answer = (line) => process.stdout.write(`${JSON.stringify(line)}\n`)

for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line)
  if (command.op === 'check') {
    const outcome = await keyward
      .authenticate(
        { projectKey: command.key },
        { scope: 'project', projectId: command.projectId, permissions: command.permissions },
      )
      .then(
        () => 'accepted',
        (error) => error.type,
      )
    answer({ outcome, entries: keyward.cacheStats()?.entries ?? 0 })
  } else if (command.op === 'updateRole') {
    const updated = await keyward.updateRole(command.id, { permissions: command.permissions })
    answer({ permissions: updated?.permissions ?? null })
  } else if (command.op === 'close') {
    await keyward.close()
    await store.close()
    answer({ closed: true })
    process.exit(0)
  }
}
