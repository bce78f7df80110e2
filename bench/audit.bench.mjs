// What the audit log costs a write: a key's expiry set through the store with no audit row (one
// statement), and with its row (a transaction: the write, the chain's head locked FOR UPDATE, the
// row and the new head), one writer at a time and eight at once (appends take turns on the head).
import { hashKey } from '@keyward/core'
import { PostgresKeyStore } from '@keyward/postgres'
import { onEachDatabase } from './databases.mjs'
import { machineLine, table, throughput } from './harness.mjs'

const SECONDS = 3
const rows = []

await onEachDatabase('audit', 10, async ({ label, driver, schema }) => {
  const store = new PostgresKeyStore(driver, { schema, strictRevocation: false })
  const keys = []
  for (let i = 0; i < 64; i++) {
    keys.push(
      await store.insertKey({
        id: crypto.randomUUID(),
        hash: await hashKey(`ak_${String(i).padStart(32, 'x')}`),
        keyPrefix: 'ak_xxxxx',
        ownerType: 'project',
        ownerId: 'proj_bench',
        name: null,
        active: true,
        createdAt: new Date(),
      }),
    )
  }
  const row = (record) => ({
    at: new Date(),
    action: 'key.expiry_set',
    actor: { type: 'system' },
    clientAddress: '203.0.113.7',
    requestId: crypto.randomUUID(),
    developerId: 'dev_bench',
    projectId: record.ownerId,
    targetType: 'key',
    targetId: record.id,
    before: { expires_at: null },
    after: { expires_at: record.expiresAt?.toISOString() ?? null },
  })
  const audited = (written) => written.map(row)
  const expiry = (i) => new Date(Date.now() + 86_400_000 + i)
  for (const inFlight of [1, 8]) {
    for (const [name, audit] of [
      ['no audit row', undefined],
      ['with its audit row', audited],
    ]) {
      const op = (i) => store.setKeyExpiry(keys[i % keys.length].id, expiry(i), audit)
      await throughput(op, inFlight, 500) // warm-up
      const { opsPerSecond } = await throughput(op, inFlight, SECONDS * 1000)
      rows.push([label, String(inFlight), name, opsPerSecond.toFixed(0), (1000 / opsPerSecond) * inFlight])
    }
  }
})

table(
  ['database', 'writers', 'write', 'writes/s', 'ms per write'],
  rows.map(([label, writers, name, perSecond, ms]) => [label, writers, name, perSecond, ms.toFixed(2)]),
)
console.log(`\n${machineLine()}`)
