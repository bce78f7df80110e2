// PostgreSQL restarted behind a real PgBouncer (transaction mode), under traffic to the store: a
// cluster of this file's own (initdb, pg_ctl) behind a PgBouncer of its own. While the server is
// down, operations fail with 503 store_unavailable (or wait and succeed); never a wrong answer;
// nothing acknowledged is lost. How soon it answers again depends on PgBouncer's
// `server_login_retry` (15 s by default) after a failed login: measured stock and at 1 s.
import { createKeyward, ErrorType, type Keyward } from '@keyward/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PgBouncer, pgbouncerUnavailable } from '../../../scripts/pgbouncer.mjs'
import { ReplicaCluster, replicaClusterUnavailable } from '../../../scripts/replica-cluster.mjs'
import type { PostgresKeyStore } from './base.js'
import { createPgKeyStore } from './pg.js'
import { uniqueSchema } from './test/harness.js'

const missing = pgbouncerUnavailable() ?? replicaClusterUnavailable()
const skipped = missing ? ` (skipped: ${missing})` : ''
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Outcome {
  readonly kind: 'create' | 'verify' | 'revoked'
  readonly startedAt: number
  readonly endedAt: number
  /** `ok`, or the error type of the refusal. */
  readonly result: string
}

/** Runs traffic on `keyward` while `fault` runs; returns what each operation answered and when. */
async function underTraffic(
  keyward: Keyward,
  keys: { valid: string; revoked: string },
  fault: () => Promise<number>,
) {
  const outcomes: Outcome[] = []
  const created: string[] = []
  let stop = false
  const project = { scope: 'project', projectId: 'p1' } as const
  const run = async (kind: Outcome['kind']) => {
    const startedAt = performance.now()
    const operation =
      kind === 'create'
        ? keyward
            .issueDeveloperKey(`dev-${crypto.randomUUID()}`)
            .then(({ record }) => created.push(record.id))
        : keyward.authenticate({ projectKey: kind === 'verify' ? keys.valid : keys.revoked }, project)
    const result = await operation.then(
      () => 'ok',
      (error: { type?: string; status?: number }) => `${error.status} ${error.type}`,
    )
    outcomes.push({ kind, startedAt, endedAt: performance.now(), result })
  }
  const worker = async (kinds: Outcome['kind'][]) => {
    for (let i = 0; !stop; i++) {
      await run(kinds[i % kinds.length]!)
      await sleep(5)
    }
  }
  const workers = [worker(['create', 'verify']), worker(['verify', 'revoked']), worker(['verify', 'create'])]
  await sleep(300)
  const upAt = await fault()
  const recovered = (kind: Outcome['kind']) =>
    outcomes.find((o) => o.kind === kind && o.startedAt >= upAt && o.result === 'ok')
  for (let waited = 0; waited < 40_000 && !(recovered('verify') && recovered('create')); waited += 20) {
    await sleep(20)
  }
  await sleep(200)
  stop = true
  await Promise.all(workers)
  const recovery = Math.max(
    ...(['verify', 'create'] as const).map((k) => (recovered(k)?.endedAt ?? Number.POSITIVE_INFINITY) - upAt),
  )
  return { outcomes, created, recovery }
}

describe.skipIf(missing)(`the store when PostgreSQL behind PgBouncer restarts${skipped}`, () => {
  let cluster: ReplicaCluster
  beforeAll(async () => {
    cluster = await ReplicaCluster.start({ standby: false })
  })
  afterAll(() => cluster?.destroy())

  const cases = [
    { name: 'stock settings (server_login_retry 15 s)', settings: [], bound: 20_000 },
    { name: 'server_login_retry = 1', settings: ['server_login_retry = 1'], bound: 2000 },
  ]
  it.each(cases)(
    'with $name: 503 while down, never a wrong answer, nothing acknowledged lost',
    async ({ name, settings, bound }) => {
      const node = cluster.primary
      const bouncer = await PgBouncer.start({ server: node.url, poolMode: 'transaction', settings })
      let store: PostgresKeyStore | undefined
      try {
        const schema = uniqueSchema()
        store = await createPgKeyStore(
          { connectionString: bouncer.through(node.url), poolConfig: { max: 4 } },
          { schema, preparedStatements: false },
        )
        const keyward = createKeyward({ store })
        const valid = await keyward.issueProjectKey('p1')
        const revoked = await keyward.issueProjectKey('p1')
        await keyward.deactivateKey(revoked.record.id)

        let stoppedAt = 0
        let downFor = 0
        const { outcomes, created, recovery } = await underTraffic(
          keyward,
          { valid: valid.key, revoked: revoked.key },
          async () => {
            stoppedAt = performance.now()
            await cluster.stopNode(node, 'fast')
            await sleep(1000)
            await cluster.startNode(node)
            const upAt = performance.now()
            downFor = upAt - stoppedAt
            return upAt
          },
        )
        const refused = outcomes.filter((o) => o.result !== 'ok').length
        console.log(
          `PostgreSQL behind PgBouncer (${name}) down for ${Math.round(downFor)} ms: store answering again ` +
            `${Math.round(recovery)} ms after the server accepts connections; ${outcomes.length} operations, ` +
            `${refused} refused with 503, ${created.length} keys created`,
        )

        const unavailable = `503 ${ErrorType.storeUnavailable}`
        for (const o of outcomes) {
          const right =
            o.kind === 'revoked' ? [`401 ${ErrorType.keyInvalid}`, unavailable] : ['ok', unavailable]
          expect(right, `${o.kind} answered ${o.result}`).toContain(o.result)
        }
        // Operations ran while it was down (each refused, or held and then answered: both are right).
        expect(
          outcomes.filter((o) => o.startedAt >= stoppedAt && o.startedAt < stoppedAt + downFor).length,
        ).toBeGreaterThan(0)
        expect(recovery).toBeLessThan(bound)
        // Every key whose creation was acknowledged is there and active.
        const rows = await store.query<{ id: string }>(
          `SELECT id FROM "${schema}".api_keys WHERE id = ANY($1::uuid[]) AND active`,
          [created],
        )
        expect(rows).toHaveLength(created.length)
        await store.query(`DROP SCHEMA "${schema}" CASCADE`)
      } finally {
        await store?.close()
        await bouncer.destroy()
      }
    },
  )
})
