// What a flush of usage counts costs PostgreSQL, counted on a real server: one statement per batch
// and one row per key, minute and outcome, however many verifications.
import { createKeyward } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import { PostgresKeyStore } from './base.js'
import type { SqlDriver } from './driver.js'
import { PG_URL, pgHarness } from './test/harness.js'

describe.skipIf(!PG_URL)('usage counts on PostgreSQL (set KEYWARD_PG_URL to run)', () => {
  it('a flush of 2,000 verifications of 2 keys is one statement that writes 2 rows', async () => {
    const harness = await pgHarness()
    try {
      // The store's driver, with its statements counted: what the flush sends, and nothing else.
      const statements: string[] = []
      const counting: SqlDriver = {
        query: (text, params, options) => {
          statements.push(text)
          return harness.driver.query(text, params, options)
        },
        transaction: (fn) => harness.driver.transaction(fn),
      }
      const store = new PostgresKeyStore(counting, { schema: harness.schema })
      const keyward = createKeyward({ store, usage: { flushIntervalSeconds: 60 }, trackLastUsed: false })
      const a = await keyward.issueProjectKey('proj_a')
      const b = await keyward.issueProjectKey('proj_a')
      const requirement = { scope: 'project', projectId: 'proj_a' } as const
      statements.length = 0
      for (let i = 0; i < 1000; i++) {
        await keyward.authenticate({ projectKey: a.key }, requirement)
        await keyward.authenticate({ projectKey: b.key }, requirement)
      }
      const lookups = statements.length
      await keyward.flushUsage()
      // (Compaction may run beside it, once a process starts: its statements move no new count.)
      const written = statements.slice(lookups).filter((text) => /^INSERT INTO \S+key_usage/.test(text))
      expect(written).toHaveLength(1)
      expect(written[0]).toMatch(
        /^INSERT INTO .*key_usage.* ON CONFLICT .* DO UPDATE SET count = u\.count \+ EXCLUDED\.count$/s,
      )
      const rows = await harness.sql<{ key_id: string; outcome: string; count: string }>(
        `SELECT key_id, outcome, sum(count)::bigint AS count FROM "${harness.schema}".key_usage GROUP BY 1, 2 ORDER BY 3`,
      )
      // One minute, or two if the loop crossed a minute's end: one row per key and minute.
      const stored = await harness.sql<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${harness.schema}".key_usage`,
      )
      expect(stored[0]!.n).toBeLessThanOrEqual(4)
      expect(rows.map((row) => [row.outcome, Number(row.count)])).toEqual([
        ['accepted', 1000],
        ['accepted', 1000],
      ])
      await keyward.close()
    } finally {
      await harness.close()
    }
  })
})
