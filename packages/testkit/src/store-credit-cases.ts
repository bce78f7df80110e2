import { type CreditRefill, ErrorType, type KeyRecord, type KeyStore } from '@keyward/core'
import { expect, it } from 'vitest'
import type { StoreHarness } from './store-conformance.js'
import { recordFor } from './store-record.js'

let counter = 0
const uniqueOwner = () => `proj-credits-${Date.now().toString(36)}-${(counter++).toString(36)}`

const JAN = new Date('2027-01-01T00:00:00Z')
const MONTHLY: CreditRefill = { amount: 100, interval: 'monthly', day: 31 }

async function metered(store: KeyStore, remaining: number, refill: CreditRefill | null = null) {
  const record: KeyRecord = {
    ...(await recordFor(undefined, 'project', uniqueOwner())),
    remaining,
    refill,
    refilledAt: refill ? JAN : null,
  }
  return store.insertKey(record)
}

const noCredits = 'the store keeps no credits (leaseCredits, returnCredits, changeCredits are optional)'
const keepsCredits = (store: KeyStore) =>
  store.leaseCredits !== undefined && store.returnCredits !== undefined && store.changeCredits !== undefined

const cost = (i: number) => 1 + (i % 5)

/**
 * @internal The conformance cases of credits (`leaseCredits`, `returnCredits`, `changeCredits`):
 * leases never take more than the balance under races, a refill fires once per period however
 * many callers ask, and a change races leases without a lost update.
 */
export function creditCases(make: () => Promise<StoreHarness>, repeats: number): void {
  it("keeps a key's credits as inserted; a key without a limit has no credit fields", async (context) => {
    const { store } = await make()
    if (!keepsCredits(store)) return context.skip(noCredits)
    const key = await metered(store, 7, MONTHLY)
    expect(key).toMatchObject({ remaining: 7, refill: MONTHLY, refilledAt: JAN })
    expect(await store.findKeyByHash(key.hash)).toEqual(key)
    const plain = await store.insertKey(await recordFor(undefined, 'project', uniqueOwner()))
    expect(plain.remaining ?? null).toBeNull()
    expect(await store.leaseCredits!(plain.id, 50, 3, JAN)).toEqual({
      granted: 50,
      remaining: null,
      refill: null,
    })
  })

  it('leases at most the balance, nothing below `need`, and takes back what is returned', async (context) => {
    const { store } = await make()
    if (!keepsCredits(store)) return context.skip(noCredits)
    const key = await metered(store, 10)
    expect(await store.leaseCredits!(key.id, 4, 1, JAN)).toEqual({ granted: 4, remaining: 6, refill: null })
    expect(await store.leaseCredits!(key.id, 100, 1, JAN)).toEqual({ granted: 6, remaining: 0, refill: null })
    expect(await store.leaseCredits!(key.id, 5, 1, JAN)).toEqual({ granted: 0, remaining: 0, refill: null })
    await store.returnCredits!(key.id, 3)
    expect(await store.leaseCredits!(key.id, 5, 4, JAN)).toEqual({ granted: 0, remaining: 3, refill: null })
    expect((await store.findKeyById(key.id))?.remaining).toBe(3)
    expect(await store.leaseCredits!(crypto.randomUUID(), 5, 1, JAN)).toBeNull()
  })

  it('set, add and subtract the balance; a subtraction below zero and a change of an unlimited key are 422 and change nothing', async (context) => {
    const { store } = await make()
    if (!keepsCredits(store)) return context.skip(noCredits)
    const key = await metered(store, 10)
    const added = await store.changeCredits!(key.id, { op: 'add', amount: 5 }, JAN)
    expect(added?.before.remaining).toBe(10)
    expect(added?.record.remaining).toBe(15)
    const below = store.changeCredits!(key.id, { op: 'subtract', amount: 16 }, JAN)
    await expect(below).rejects.toMatchObject({ type: ErrorType.greaterThanEqual, status: 422 })
    expect((await store.findKeyById(key.id))?.remaining).toBe(15)
    expect((await store.changeCredits!(key.id, { op: 'subtract', amount: 15 }, JAN))?.record.remaining).toBe(
      0,
    )
    const set = await store.changeCredits!(key.id, { op: 'set', remaining: 40, refill: MONTHLY }, JAN)
    expect(set?.record).toMatchObject({ remaining: 40, refill: MONTHLY })
    const unlimited = await store.changeCredits!(key.id, { op: 'set', remaining: null }, JAN)
    expect(unlimited?.before).toMatchObject({ remaining: 40, refill: MONTHLY })
    expect(unlimited?.record.remaining ?? null).toBeNull()
    expect(unlimited?.record.refill ?? null).toBeNull()
    await expect(store.changeCredits!(key.id, { op: 'add', amount: 1 }, JAN)).rejects.toMatchObject({
      status: 422,
    })
    expect(await store.changeCredits!(crypto.randomUUID(), { op: 'add', amount: 1 }, JAN)).toBeNull()
  })

  it('a monthly refill on day 31 tops the balance up once per month (February on its last day), however many callers ask at once', async (context) => {
    const { store } = await make()
    if (!keepsCredits(store)) return context.skip(noCredits)
    const key = await metered(store, 0, MONTHLY)
    let granted = 0
    // 12 simulated months: at each refill, and just before the next one, 8 callers race.
    for (let month = 0; month < 12; month++) {
      const refillAt = new Date(
        Date.UTC(2027, month, Math.min(31, new Date(Date.UTC(2027, month + 1, 0)).getUTCDate())),
      )
      const justBefore = new Date(refillAt.getTime() - 1)
      const before = await store.leaseCredits!(key.id, 1000, 1, justBefore)
      expect(before?.granted).toBe(0)
      const leases = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store.leaseCredits!(key.id, 30, 1, new Date(refillAt.getTime() + i)),
        ),
      )
      for (const lease of leases) granted += lease?.granted ?? 0
      // 8 callers ask for 240: the one refill of the month gave 100, not more.
      expect(granted).toBe(100 * (month + 1))
      const later = await store.leaseCredits!(key.id, 1000, 1, new Date(refillAt.getTime() + 3_600_000))
      expect(later).toMatchObject({ granted: 0, remaining: 0 })
    }
  })

  it('concurrent leases never take more than the balance, and what they took plus the balance is what was granted', async (context) => {
    const { store } = await make()
    if (!keepsCredits(store)) return context.skip(noCredits)
    for (let round = 0; round < repeats; round++) {
      const key = await metered(store, 100)
      const leases = await Promise.all(
        Array.from({ length: 60 }, (_, i) => store.leaseCredits!(key.id, cost(i), cost(i), JAN)),
      )
      const taken = leases.reduce((sum, lease) => sum + (lease?.granted ?? 0), 0)
      expect(taken).toBeLessThanOrEqual(100)
      expect(taken).toBeGreaterThan(100 - 5)
      expect(taken + ((await store.findKeyById(key.id))?.remaining ?? Number.NaN)).toBe(100)
    }
  })

  it('add, subtract and set race leases without a lost update', async (context) => {
    const { store } = await make()
    if (!keepsCredits(store)) return context.skip(noCredits)
    for (let round = 0; round < repeats; round++) {
      const key = await metered(store, 1000)
      const leases = Array.from({ length: 40 }, (_, i) => store.leaseCredits!(key.id, cost(i), 1, JAN))
      const changes = Array.from({ length: 10 }, (_, i) =>
        store.changeCredits!(key.id, { op: i % 2 ? 'add' : 'subtract', amount: 7 + i }, JAN),
      )
      const [granted, changed] = await Promise.all([Promise.all(leases), Promise.all(changes)])
      const taken = granted.reduce((sum, lease) => sum + (lease?.granted ?? 0), 0)
      const moved = changed.reduce((sum, _, i) => sum + (i % 2 ? 1 : -1) * (7 + i), 0)
      expect((await store.findKeyById(key.id))?.remaining).toBe(1000 + moved - taken)
      // A set: what leases took after it is what is missing from the value set.
      const setKey = await metered(store, 1000)
      const racing = Array.from({ length: 40 }, (_, i) => store.leaseCredits!(setKey.id, cost(i), 1, JAN))
      const set = store.changeCredits!(setKey.id, { op: 'set', remaining: 500 }, JAN)
      const [afterSet, setResult] = await Promise.all([Promise.all(racing), set])
      const all = afterSet.reduce((sum, lease) => sum + (lease?.granted ?? 0), 0)
      const takenBefore = 1000 - (setResult?.before.remaining ?? Number.NaN)
      expect((await store.findKeyById(setKey.id))?.remaining).toBe(500 - (all - takenBefore))
    }
  })
}
