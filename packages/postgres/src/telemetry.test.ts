import { createHash } from 'node:crypto'
import { createKeyward } from '@keyward/core'
import { context } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPgKeyStore } from './pg.js'
import { createPGliteKeyStore } from './pglite.js'
import { PG_URL, pgliteDatabase, uniqueSchema } from './test/harness.js'
import { until } from './test/until.js'

// Spans nest through the host's context manager, as an SDK for Node registers one.
const contextManager = new AsyncLocalStorageContextManager()
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable())
})
afterAll(async () => {
  context.disable()
  await (await pgliteDatabase()).close()
})

function tracing() {
  const exporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  return { tracerProvider, spans: () => exporter.getFinishedSpans() }
}

const parentOf = (span: ReadableSpan | undefined) => span?.parentSpanContext?.spanId

describe('store call spans (PGlite)', () => {
  it('follow the PostgreSQL conventions, nest under the verification, and carry no key or hash', async () => {
    const { tracerProvider, spans } = tracing()
    const db = await pgliteDatabase()
    const schema = uniqueSchema()
    const store = await createPGliteKeyStore({ db }, { schema, telemetry: { tracerProvider } })
    try {
      const keyward = createKeyward({ store, telemetry: { tracerProvider } })
      const { key, record } = await keyward.issueProjectKey('p1', { metadata: { plan: 'kept-out' } })
      await keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'p1' })

      const insert = spans().find((span) => span.name === `insertKey ${schema}.api_keys`)
      expect(insert?.kind).toBe(2)
      expect({ ...insert?.attributes }).toEqual({
        'db.system.name': 'postgresql',
        'db.namespace': schema,
        'db.operation.name': 'insertKey',
        'db.collection.name': `${schema}.api_keys`,
      })
      const verify = spans().find((span) => span.name === 'keyward.verify')
      const lookup = spans().find((span) => span.name === `findKeyByHash ${schema}.api_keys`)
      expect(lookup?.attributes['db.operation.name']).toBe('findKeyByHash')
      // The store's span is a child of the verification's, in its trace.
      expect(parentOf(lookup)).toBe(verify?.spanContext().spanId)
      expect(lookup?.spanContext().traceId).toBe(verify?.spanContext().traceId)

      // A write in a transaction of the host's is traced too.
      await store.transaction((tx) => tx.store.recordKeyUse([{ id: record.id, usedAt: new Date() }]))
      expect(spans().some((span) => span.name === `recordKeyUse ${schema}.api_keys`)).toBe(true)

      const digest = createHash('sha256').update(key).digest()
      const text = JSON.stringify(spans().map((span) => [span.name, span.attributes, span.events]))
      for (const secret of [key, key.slice(3, 20), record.hash, digest.toString('base64url'), 'kept-out']) {
        expect(text).not.toContain(secret)
      }
    } finally {
      await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    }
  })

  it('a failed call: error.type and db.response.status_code are the SQLSTATE, the status an error', async () => {
    const { tracerProvider, spans } = tracing()
    const db = await pgliteDatabase()
    const schema = uniqueSchema()
    const store = await createPGliteKeyStore({ db }, { schema, telemetry: { tracerProvider } })
    await db.query(`DROP SCHEMA "${schema}" CASCADE`)
    await expect(store.findKeyByHash('0'.repeat(64))).rejects.toThrow()
    const [failed] = spans()
    expect(failed?.name).toBe(`findKeyByHash ${schema}.api_keys`)
    // 42P01: undefined_table.
    expect(failed?.attributes).toMatchObject({ 'error.type': '42P01', 'db.response.status_code': '42P01' })
    expect(failed?.status.code).toBe(2)
    expect(failed?.status.message).toBeUndefined()
  })

  it('without the option, the store is untouched', async () => {
    const db = await pgliteDatabase()
    const schema = uniqueSchema()
    const store = await createPGliteKeyStore({ db }, { schema })
    try {
      expect(Object.hasOwn(store, 'findKeyByHash')).toBe(false)
      expect(
        () =>
          new (store.constructor as never as new (...a: unknown[]) => unknown)(
            { query: () => {}, transaction: () => {} },
            { telemetry: { tracerProvider: {} } },
          ),
      ).toThrow(/PostgresKeyStore: option `telemetry` must be \{ tracerProvider \}/)
    } finally {
      await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    }
  })
})

describe.skipIf(!PG_URL)('change feed reconnect spans (PostgreSQL)', () => {
  it('a killed listener: one root span from the loss to the reconnection, with its cause and attempts', async () => {
    const { tracerProvider, spans } = tracing()
    const schema = uniqueSchema()
    const applicationName = `kw_otel_${schema}`.slice(0, 63)
    const store = await createPgKeyStore(
      { connectionString: PG_URL as string, poolConfig: { max: 2 } },
      {
        schema,
        telemetry: { tracerProvider },
        changeFeed: { reconnectMinMs: 20, clientConfig: { application_name: applicationName } },
      },
    )
    const admin = new pg.Client({ connectionString: PG_URL })
    await admin.connect()
    try {
      expect(store.changes?.connected).toBe(true)
      const { rows } = await admin.query(
        'SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE application_name = $1',
        [applicationName],
      )
      expect(rows).toEqual([{ killed: true }])
      await until('the reconnect span', () => spans().some((span) => span.name === 'keyward.feed.reconnect'))
      const reconnect = spans().find((span) => span.name === 'keyward.feed.reconnect')!
      expect(parentOf(reconnect)).toBeUndefined()
      expect({ ...reconnect.attributes }).toEqual({
        'db.system.name': 'postgresql',
        // 57P01: admin_shutdown, the terminated backend.
        'keyward.feed.cause': '57P01',
        'keyward.feed.attempts': 1,
        'keyward.feed.reconnected': true,
      })
      expect(reconnect.status.code).toBe(0)
      expect(store.changes?.connected).toBe(true)
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await admin.end()
      await store.close()
    }
  })
})
