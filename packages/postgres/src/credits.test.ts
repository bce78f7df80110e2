// Credits across real processes: each child (test/spend-credits.mjs) runs the built store and a
// Keyward service of its own, and verifies one metered key through a guard; the parent reads what
// the store holds. The invariant: accepted costs never add up to more than the credits granted,
// and after clean stops, granted minus accepted cost is the stored balance, exactly.
import { once } from 'node:events'
import { createKeyward, type KeyRecord } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import {
  eightProcesses,
  eightProcessesThroughBouncer,
  eightServices,
  killSpendersAfterEach,
  pgHarnesses,
  type Spent,
  spender,
  sum,
} from './test/credit-spenders.js'
import { type Harness, PG_URL, pgliteHarness } from './test/harness.js'

killSpendersAfterEach()

const balanceOf = async (harness: Harness, id: string) => {
  const [row] = await harness.sql<{ remaining: string | number }>(
    `SELECT remaining FROM "${harness.schema}".api_keys WHERE id = $1`,
    [id],
  )
  return Number(row?.remaining)
}

async function meteredKey(harness: Harness, remaining: number, refill?: KeyRecord['refill']) {
  const keyward = createKeyward({ store: harness.store, ...(refill ? { now: () => JAN } : {}) })
  return keyward.issueProjectKey('proj-credits', { remaining, ...(refill ? { refill } : {}) })
}

/** One key of 1,000 credits, which the processes spend. */
async function oneKey(harness: Harness) {
  const { key, record } = await meteredKey(harness, 1000)
  return { keys: [key], balance: () => balanceOf(harness, record.id) }
}

const JAN = new Date('2027-01-01T00:00:00Z')

describe.skipIf(!PG_URL)('credits on PostgreSQL, across processes (set KEYWARD_PG_URL to run)', () => {
  const make = pgHarnesses()

  it('8 processes, 4,000 concurrent verifications costing 1 to 5, 1,000 credits: never more accepted, the balance exact after clean stops', async () => {
    const harness = await make()
    const { accepted, refused } = await eightProcesses(harness, PG_URL as string, await oneKey(harness))
    // With 12,000 credits asked for, nearly all of the 1,000 are spent.
    expect(accepted).toBeGreaterThan(900)
    expect(refused).toBeGreaterThan(0)
    console.info(`credits on PostgreSQL: accepted cost ${accepted} of 1000, ${refused} refused`)
  }, 120_000)

  it('set, add and subtract race the spending of 8 processes without a lost update', async () => {
    const harness = await make()
    const { key, record } = await meteredKey(harness, 1000)
    const keyward = createKeyward({ store: harness.store })
    const processes = Array.from({ length: 8 }, () =>
      spender({ url: PG_URL as string, schema: harness.schema, key }),
    )
    const spending = Promise.all(
      processes.map((p, i) => p.send<Spent>({ op: 'spend', count: 300, start: i })),
    )
    // Changes while the processes spend: 20 adds of 10, 10 subtracts of 5 (those that find the
    // balance too low are refused and change nothing), one set whose `before` the event reports.
    const moved: number[] = []
    let setTo: { before: number; value: number } | undefined
    const changes = Array.from({ length: 31 }, async (_, i) => {
      if (i === 30) {
        const events: { before: { remaining: number | null } }[] = []
        const watching = createKeyward({
          store: harness.store,
          onEvent: (event) => {
            if (event.type === 'key.credits_changed') events.push(event)
          },
        })
        await new Promise((resolve) => setTimeout(resolve, 20))
        await watching.changeCredits(record.id, { op: 'set', remaining: 2000 })
        setTo = { before: events[0]!.before.remaining as number, value: 2000 }
        return
      }
      const op = i % 3 === 2 ? 'subtract' : 'add'
      const amount = op === 'add' ? 10 : 5
      try {
        await keyward.changeCredits(record.id, { op, amount })
        moved.push(op === 'add' ? amount : -amount)
      } catch (error) {
        expect(error).toMatchObject({ status: 422 })
      }
    })
    const [spent] = await Promise.all([spending, Promise.all(changes)])
    await Promise.all(processes.map((p) => p.send({ op: 'close' })))
    expect(spent.flatMap((s) => s.other)).toEqual([])
    // The ledger: what was granted (initial, adds, subtracts, and the set's change of the
    // balance it found) is what was accepted plus what is stored.
    const granted = 1000 + moved.reduce((a, b) => a + b, 0) + (setTo!.value - setTo!.before)
    expect(await balanceOf(harness, record.id)).toBe(granted - sum(spent))
  }, 120_000)

  it('a refill fires once per period: 8 processes over 12 simulated months, a clock the store honours', async () => {
    const harness = await make()
    const refill = { amount: 50, interval: 'monthly', day: 31 } as const
    const { key, record } = await meteredKey(harness, 0, refill)
    const processes = Array.from({ length: 8 }, () =>
      spender({ url: PG_URL as string, schema: harness.schema, key }),
    )
    let accepted = 0
    for (let month = 0; month < 12; month++) {
      const last = new Date(Date.UTC(2027, month + 1, 0)).getUTCDate()
      const refillAt = Date.UTC(2027, month, Math.min(31, last))
      // Each process at its own instant just after the refill, as clocks differ.
      await Promise.all(
        processes.map((p, i) => p.send({ op: 'clock', at: new Date(refillAt + i * 1000).toISOString() })),
      )
      const spent = await Promise.all(
        processes.map((p, i) => p.send<Spent>({ op: 'spend', count: 20, start: i * 20 })),
      )
      accepted += sum(spent)
      // 8 x 20 requests ask for far more than one refill: more than one would show here.
      expect(accepted).toBeLessThanOrEqual(50 * (month + 1))
    }
    await Promise.all(processes.map((p) => p.send({ op: 'close' })))
    // Each month drained the balance, so each refill granted 50: 12 refills, no more, no fewer.
    expect(accepted + (await balanceOf(harness, record.id))).toBe(600)
    console.info(`refill over 12 months by 8 processes: accepted ${accepted} of 600 granted`)
  }, 180_000)

  it('kill -9 with a lease out strands at most one block and never lets the key overspend', async () => {
    const harness = await make()
    const { key, record } = await meteredKey(harness, 10_000)
    const killed = spender({ url: PG_URL as string, schema: harness.schema, key })
    const first = await killed.send<Spent>({ op: 'spend', count: 200, start: 0 })
    killed.child.kill('SIGKILL')
    await once(killed.child, 'exit')
    const stranded = 10_000 - first.acceptedCost - (await balanceOf(harness, record.id))
    expect(stranded).toBeGreaterThanOrEqual(0)
    expect(stranded).toBeLessThanOrEqual(1000) // the default maxBlock
    // The survivors spend what is left, and never more.
    const survivors = Array.from({ length: 2 }, () =>
      spender({ url: PG_URL as string, schema: harness.schema, key }),
    )
    const rest = await Promise.all(
      survivors.map((p, i) => p.send<Spent>({ op: 'spend', count: 4000, start: i })),
    )
    const closed = await Promise.all(
      survivors.map((p) => p.send<{ stranded: number; storeErrors: string[] }>({ op: 'close' })),
    )
    const accepted = first.acceptedCost + sum(rest)
    expect(accepted).toBeLessThanOrEqual(10_000 - stranded)
    // The books balance: what was accepted, what the kill stranded, and what a stop reported it
    // could not give back (a give-back whose outcome is unknown on a loaded machine).
    const strandedAtStop = closed.reduce((total, c) => total + c.stranded, 0)
    expect({
      balance: await balanceOf(harness, record.id),
      storeErrors: closed.flatMap((c) => c.storeErrors),
    }).toMatchObject({ balance: 10_000 - stranded - accepted - strandedAtStop })
    console.info(`kill -9: ${stranded} credits stranded, accepted ${accepted} of 10000`)
  }, 120_000)
})

eightProcessesThroughBouncer(
  'credits through PgBouncer in transaction mode',
  '8 processes, 4,000 concurrent verifications, 1,000 credits: never more accepted, the balance exact',
  oneKey,
  (accepted) => console.info(`credits through PgBouncer: accepted cost ${accepted} of 1000`),
)

// PGlite is one process's database (its data directory admits one process): 8 services, each
// with a store instance of its own over the one database, stand for 8 processes.
describe('credits on PGlite: 8 services and stores in one process', () => {
  it('4,000 concurrent verifications costing 1 to 5 against 1,000 credits: never more accepted, the balance exact', async () => {
    const harness = await pgliteHarness()
    try {
      const accepted = await eightServices(harness, await oneKey(harness))
      console.info(`credits on PGlite: accepted cost ${accepted} of 1000`)
    } finally {
      await harness.close()
    }
  }, 120_000)
})
