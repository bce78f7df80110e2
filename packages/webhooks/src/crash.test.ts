// At least once across a crash: a dispatcher killed with SIGKILL while a delivery is in flight
// leaves it claimed only until its lease ends; another process then delivers it again, with the
// same webhook-id. Real processes on real PostgreSQL (PGlite runs in one process: no second
// process can claim after a kill there, so this file needs KEYWARD_PG_URL).
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { createKeyward, WebhookEndpoints } from '@keyward/core'
import type { PostgresKeyStore } from '@keyward/postgres'
import { createPgKeyStore } from '@keyward/postgres/pg'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { receiver } from './test/receiver.js'

const PG_URL = process.env.KEYWARD_PG_URL
const WORKER = new URL('./test/dispatch-worker.mjs', import.meta.url).pathname

function worker(schema: string, leaseMs: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [WORKER, JSON.stringify({ url: PG_URL, schema, leaseMs })], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the dispatcher exited with ${code}`)))
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line === 'ready') resolve(child)
    })
  })
}

describe.skipIf(!PG_URL)(
  'a dispatcher killed while delivering, on PostgreSQL (set KEYWARD_PG_URL to run)',
  () => {
    const cleanup: (() => Promise<void> | void)[] = []
    afterEach(async () => {
      for (const step of cleanup.splice(0).reverse()) await step()
    })

    it('kill -9 during a delivery: a second process delivers it after the lease, with the same webhook-id', async () => {
      const schema = `kw_test_${process.pid}_${Date.now().toString(36)}_crash`
      const store: PostgresKeyStore = await createPgKeyStore({ connectionString: PG_URL! }, { schema })
      cleanup.push(async () => {
        await store.close()
        const admin = new pg.Client({ connectionString: PG_URL })
        await admin.connect()
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
        await admin.end()
      })
      // The first request is never answered: the process delivering it dies meanwhile.
      const target = await receiver((_, i) => (i === 0 ? 'hang' : { status: 200, body: 'ok' }))
      cleanup.push(() => target.close())
      const keyward = createKeyward({ store, projectOwner: () => 'dev-1' })
      await new WebhookEndpoints(store.webhooks, { allowHttp: true }).create('dev-1', {
        url: target.url,
        eventTypes: ['key.revoked'],
      })
      const { record } = await keyward.issueProjectKey('p1')
      await keyward.deactivateKey(record.id)

      const first = await worker(schema, 2_000)
      await expect.poll(() => target.received.length, { timeout: 10_000 }).toBe(1)
      first.kill('SIGKILL')
      await new Promise((resolve) => first.once('exit', resolve))

      const second = await worker(schema, 2_000)
      cleanup.push(() => {
        second.kill('SIGKILL')
      })
      await expect.poll(() => target.received.length, { timeout: 15_000 }).toBe(2)
      expect(target.received[1]?.headers['webhook-id']).toBe(target.received[0]?.headers['webhook-id'])
      expect(JSON.parse(target.received[1]!.body)).toMatchObject({
        type: 'key.revoked',
        data: { key_id: record.id },
      })
      const delivered = async () =>
        (await store.webhooks.listAttempts((await store.webhooks.listEndpoints('dev-1'))[0]!.id, 10)).map(
          (attempt) => attempt.status,
        )
      // The killed process logged nothing: one attempt, by the second process, answered 200.
      await expect.poll(delivered, { timeout: 5_000 }).toEqual([200])
    }, 60_000)
  },
)
