// The credit pool of an identity across real processes, as credits.test.ts checks a key's own
// credits: 8 processes spend one pool of 1,000 credits through 50 keys of the identity, each
// request costing 1 to 5. The accepted cost never passes 1,000, and after clean stops the pool's
// stored balance is 1,000 minus it, exactly; on PostgreSQL, through PgBouncer, and on PGlite.
import { createKeyward } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import {
  eightProcesses,
  eightProcessesThroughBouncer,
  eightServices,
  killSpendersAfterEach,
  pgHarnesses,
  type Spending,
} from './test/credit-spenders.js'
import { type Harness, PG_URL, pgliteHarness } from './test/harness.js'

killSpendersAfterEach()

const PROJECT = 'proj-pool'

const sumOf = async (harness: Harness, table: string, where: string, id: string) => {
  const [row] = await harness.sql<{ remaining: string | number }>(
    `SELECT sum(remaining) AS remaining FROM "${harness.schema}".${table} WHERE ${where} = $1`,
    [id],
  )
  return Number(row?.remaining)
}

/** An identity with a pool of 1,000 credits and 50 keys, each with `own` credits when given. */
async function onePool(harness: Harness, own?: number): Promise<Spending & { identityId: string }> {
  const keyward = createKeyward({ store: harness.store })
  const identity = await keyward.createIdentity(PROJECT, { externalId: 'customer_acme', remaining: 1000 })
  const keys: string[] = []
  for (let i = 0; i < 50; i++) {
    const options = { identityId: identity.id, ...(own === undefined ? {} : { remaining: own }) }
    keys.push((await keyward.issueProjectKey(PROJECT, options)).key)
  }
  return {
    identityId: identity.id,
    keys,
    balance: () => sumOf(harness, 'identities', 'id', identity.id),
  }
}

describe.skipIf(!PG_URL)(
  'an identity pool on PostgreSQL, across processes (set KEYWARD_PG_URL to run)',
  () => {
    const make = pgHarnesses()

    it('8 processes spend one pool of 1,000 through 50 keys, 4,000 requests costing 1 to 5: never more accepted, the pool exact after clean stops', async () => {
      const harness = await make()
      const { accepted, refused } = await eightProcesses(harness, PG_URL as string, await onePool(harness))
      expect(accepted).toBeGreaterThan(900)
      expect(refused).toBeGreaterThan(0)
      console.info(`identity pool on PostgreSQL: accepted cost ${accepted} of 1000, ${refused} refused`)
    }, 120_000)

    it("keys with 30 credits of their own spend from both: a refusal by either takes nothing from the other's balance", async () => {
      const harness = await make()
      // 50 keys of 30 (1,500 in all) against a pool of 1,000: both run out, here and there.
      const pool = await onePool(harness, 30)
      const { accepted } = await eightProcesses(harness, PG_URL as string, pool)
      // Every accepted request paid both; no refused one paid either.
      expect(await sumOf(harness, 'api_keys', 'identity_id', pool.identityId)).toBe(50 * 30 - accepted)
      console.info(`identity pool and keys' own credits on PostgreSQL: accepted cost ${accepted}`)
    }, 120_000)
  },
)

eightProcessesThroughBouncer(
  'an identity pool through PgBouncer in transaction mode',
  '8 processes spend one pool of 1,000 through 50 keys: never more accepted, the pool exact',
  (harness) => onePool(harness),
  (accepted) => console.info(`identity pool through PgBouncer: accepted cost ${accepted} of 1000`),
)

describe('an identity pool on PGlite: 8 services and stores in one process', () => {
  it('spend one pool of 1,000 through 50 keys, 4,000 requests costing 1 to 5: never more accepted, the pool exact', async () => {
    const harness = await pgliteHarness()
    try {
      const accepted = await eightServices(harness, await onePool(harness))
      console.info(`identity pool on PGlite: accepted cost ${accepted} of 1000`)
    } finally {
      await harness.close()
    }
  }, 120_000)
})
