import {
  type AuditEntry,
  type CreditChange,
  type CreditLease,
  type CreditRefill,
  ErrorType,
  type KeyChangeEvent,
  type KeyRecord,
  type KeyStore,
} from '@keyward/core'
import { expect, it } from 'vitest'
import type { StoreHarness } from './store-conformance.js'
import { recordFor, until } from './store-record.js'

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

/**
 * What the cases do with one holder of credits: an API key's own credits, or the pool of an
 * identity. `create` answers the new holder's id.
 */
interface CreditHolderAccess {
  /** Why the store cannot run these cases, or `undefined` when it can. */
  missing(store: KeyStore): string | undefined
  /** How the cases' names begin. */
  readonly title: string
  create(store: KeyStore, remaining: number | null, refill?: CreditRefill | null): Promise<string>
  lease(store: KeyStore, id: string, want: number, need: number, now: Date): Promise<CreditLease | null>
  giveBack(store: KeyStore, id: string, amount: number): Promise<void>
  change(
    store: KeyStore,
    id: string,
    change: CreditChange,
    now: Date,
  ): Promise<{
    before: { remaining: number | null }
    remaining: number | null
    refill: CreditRefill | null
  } | null>
  balance(store: KeyStore, id: string): Promise<number | null | undefined>
}

const KEY_CREDITS: CreditHolderAccess = {
  title: '',
  missing: (store) =>
    store.leaseCredits !== undefined && store.returnCredits !== undefined && store.changeCredits !== undefined
      ? undefined
      : 'the store keeps no credits (leaseCredits, returnCredits, changeCredits are optional)',
  create: async (store, remaining, refill = null) =>
    remaining === null
      ? (await store.insertKey(await recordFor(undefined, 'project', uniqueOwner()))).id
      : (await metered(store, remaining, refill)).id,
  lease: (store, id, want, need, now) => store.leaseCredits!(id, want, need, now),
  giveBack: (store, id, amount) => store.returnCredits!(id, amount),
  change: async (store, id, change, now) => {
    const changed = await store.changeCredits!(id, change, now)
    return (
      changed && {
        before: changed.before,
        remaining: changed.record.remaining ?? null,
        refill: changed.record.refill ?? null,
      }
    )
  },
  balance: async (store, id) => (await store.findKeyById(id))?.remaining ?? null,
}

// A key's credits leased through `leaseCreditsMany`, a batch of one: every case of a holder holds
// for the batch method too.
const KEY_CREDITS_BATCH: CreditHolderAccess = {
  ...KEY_CREDITS,
  title: 'leaseCreditsMany: ',
  missing: (store) =>
    KEY_CREDITS.missing(store) ??
    (store.leaseCreditsMany === undefined ? 'the store has no leaseCreditsMany (it is optional)' : undefined),
  lease: async (store, id, want, need, now) => {
    const leases = await store.leaseCreditsMany!([{ id, want, need }], now)
    expect(leases).toHaveLength(1)
    return leases[0]!
  },
}

const IDENTITY_POOL: CreditHolderAccess = {
  title: "an identity's pool: ",
  missing: (store) =>
    store.identities ? undefined : 'the store keeps no identities (store.identities is optional)',
  create: async (store, remaining, refill = null) => {
    const id = crypto.randomUUID()
    await store.identities!.insertIdentity({
      id,
      projectId: uniqueOwner(),
      externalId: `customer_${id}`,
      metadata: null,
      ratelimits: [],
      remaining,
      refill,
      refilledAt: refill ? JAN : null,
      createdAt: JAN,
      updatedAt: JAN,
    })
    return id
  },
  lease: (store, id, want, need, now) => store.identities!.leaseIdentityCredits(id, want, need, now),
  giveBack: (store, id, amount) => store.identities!.returnIdentityCredits(id, amount),
  change: async (store, id, change, now) => {
    const changed = await store.identities!.changeIdentityCredits(id, change, now)
    return (
      changed && {
        before: changed.before,
        remaining: changed.identity.remaining,
        refill: changed.identity.refill,
      }
    )
  },
  balance: async (store, id) => (await store.identities!.findIdentity(id))?.remaining,
}

const cost = (i: number) => 1 + (i % 5)

// What every store's lease answers; `refilledAt` and `lowAt` are a store's own to add.
const leased = (lease: CreditLease | null) =>
  lease && { granted: lease.granted, remaining: lease.remaining, refill: lease.refill }

/**
 * @internal The conformance cases of credits (`leaseCredits`, `returnCredits`, `changeCredits`)
 * and of the pools of identities (`leaseIdentityCredits`, `returnIdentityCredits`,
 * `changeIdentityCredits`): leases never take more than the balance under races, a refill fires
 * once per period however many callers ask, and a change races leases without a lost update.
 */
export function creditCases(make: () => Promise<StoreHarness>, repeats: number): void {
  it("keeps a key's credits as inserted; a key without a limit has no credit fields", async (context) => {
    const { store } = await make()
    const missing = KEY_CREDITS.missing(store)
    if (missing) return context.skip(missing)
    const key = await metered(store, 7, MONTHLY)
    expect(key).toMatchObject({ remaining: 7, refill: MONTHLY, refilledAt: JAN })
    expect(await store.findKeyByHash(key.hash)).toEqual(key)
    const plain = await store.insertKey(await recordFor(undefined, 'project', uniqueOwner()))
    expect(plain.remaining ?? null).toBeNull()
  })

  it("keeps the low-credits threshold of a key and of an identity's pool, and a lease that names one names it", async (context) => {
    const { store } = await make()
    const missing = KEY_CREDITS.missing(store)
    if (missing) return context.skip(missing)
    const record: KeyRecord = {
      ...(await recordFor(undefined, 'project', uniqueOwner())),
      remaining: 50,
      refill: MONTHLY,
      refilledAt: JAN,
      creditsLowAt: { percent: 10 },
    }
    const key = await store.insertKey(record)
    expect(key.creditsLowAt).toEqual({ percent: 10 })
    expect((await store.findKeyById(key.id))?.creditsLowAt).toEqual({ percent: 10 })
    expect((await store.findKeyByHash(key.hash))?.creditsLowAt).toEqual({ percent: 10 })
    const lease = await store.leaseCredits!(key.id, 5, 1, JAN)
    if (lease?.lowAt !== undefined) expect(lease.lowAt).toEqual({ percent: 10 })
    const plain = await metered(store, 5)
    expect(plain.creditsLowAt ?? null).toBeNull()
    if (!store.identities) return
    const id = crypto.randomUUID()
    await store.identities.insertIdentity({
      id,
      projectId: uniqueOwner(),
      externalId: `customer_${id}`,
      metadata: null,
      ratelimits: [],
      remaining: 20,
      refill: null,
      refilledAt: null,
      creditsLowAt: { remaining: 5 },
      createdAt: JAN,
      updatedAt: JAN,
    })
    expect((await store.identities.findIdentity(id))?.creditsLowAt).toEqual({ remaining: 5 })
    const pooled = await store.identities.leaseIdentityCredits(id, 1, 1, JAN)
    if (pooled?.lowAt !== undefined) expect(pooled.lowAt).toEqual({ remaining: 5 })
  })

  it('changes and clears the low-credits threshold of a key; a change of credits clears one they could not have; the change feed reports it (when it has setKeyPolicies)', async (context) => {
    const { store } = await make()
    const missing = KEY_CREDITS.missing(store)
    if (missing) return context.skip(missing)
    if (!store.setKeyPolicies) return context.skip('the store has no setKeyPolicies (it is optional)')
    const key = await metered(store, 50, MONTHLY)
    const lowAt = async () => {
      const [byId, byHash] = [await store.findKeyById(key.id), await store.findKeyByHash(key.hash)]
      expect(byHash?.creditsLowAt ?? null).toEqual(byId?.creditsLowAt ?? null)
      return byId?.creditsLowAt ?? null
    }
    const heard: KeyChangeEvent[] = []
    const stop = store.changes?.subscribe((event) => heard.push(event))
    try {
      expect((await store.setKeyPolicies(key.id, { creditsLowAt: { percent: 20 } }))?.creditsLowAt).toEqual({
        percent: 20,
      })
      expect(await lowAt()).toEqual({ percent: 20 })
      if (store.changes?.connected) {
        await until(() => heard.some((event) => event.type === 'changed' && event.hash === key.hash))
      }
      // Another policy leaves it as it is; `null` clears it.
      await store.setKeyPolicies(key.id, { permissions: ['reports:read'] })
      expect(await lowAt()).toEqual({ percent: 20 })
      await store.setKeyPolicies(key.id, { creditsLowAt: { remaining: 3 } })
      expect(await lowAt()).toEqual({ remaining: 3 })
      expect((await store.setKeyPolicies(key.id, { creditsLowAt: null }))?.creditsLowAt ?? null).toBeNull()
      expect(await lowAt()).toBeNull()
    } finally {
      stop?.()
    }
    // A change of credits keeps a threshold the new credits could have, and clears another.
    await store.setKeyPolicies(key.id, { creditsLowAt: { percent: 20 } })
    await store.changeCredits!(key.id, { op: 'add', amount: 5 }, JAN)
    await store.changeCredits!(key.id, { op: 'set', remaining: 40 }, JAN)
    expect(await lowAt()).toEqual({ percent: 20 })
    // The threshold cleared with a balance that keeps its limit: the feed reports it too.
    const cleared: KeyChangeEvent[] = []
    const stopCleared = store.changes?.subscribe((event) => cleared.push(event))
    try {
      const unruled = await store.changeCredits!(key.id, { op: 'set', remaining: 40, refill: null }, JAN)
      expect(unruled?.record.creditsLowAt ?? null).toBeNull()
      expect(await lowAt()).toBeNull()
      if (store.changes?.connected) {
        await until(() => cleared.some((event) => event.type === 'changed' && event.hash === key.hash))
      }
    } finally {
      stopCleared?.()
    }
    await store.setKeyPolicies(key.id, { creditsLowAt: { remaining: 3 } })
    await store.changeCredits!(key.id, { op: 'set', remaining: 40, refill: null }, JAN)
    expect(await lowAt()).toEqual({ remaining: 3 })
    const unlimited = await store.changeCredits!(key.id, { op: 'set', remaining: null }, JAN)
    expect(unlimited?.record.creditsLowAt ?? null).toBeNull()
    expect(await lowAt()).toBeNull()
  })

  it("changes and clears the low-credits threshold of an identity's pool; a change of the pool clears one it could not have", async (context) => {
    const { store } = await make()
    const missing = IDENTITY_POOL.missing(store)
    if (missing) return context.skip(missing)
    const identities = store.identities!
    const id = await IDENTITY_POOL.create(store, 20, MONTHLY)
    const lowAt = async () => (await identities.findIdentity(id))?.creditsLowAt ?? null
    const later = new Date(JAN.getTime() + 1000)
    const changed = await identities.updateIdentity(id, { creditsLowAt: { percent: 10 } }, later)
    expect(changed?.creditsLowAt).toEqual({ percent: 10 })
    expect(await lowAt()).toEqual({ percent: 10 })
    await identities.updateIdentity(id, { metadata: { plan: 'pro' } }, later)
    expect(await lowAt()).toEqual({ percent: 10 })
    await identities.updateIdentity(id, { creditsLowAt: null }, later)
    expect(await lowAt()).toBeNull()
    await identities.updateIdentity(id, { creditsLowAt: { percent: 10 } }, later)
    const unruled = await identities.changeIdentityCredits(
      id,
      { op: 'set', remaining: 20, refill: null },
      JAN,
    )
    expect(unruled?.identity.creditsLowAt ?? null).toBeNull()
    expect(await lowAt()).toBeNull()
    await identities.updateIdentity(id, { creditsLowAt: { remaining: 5 } }, later)
    await identities.changeIdentityCredits(id, { op: 'add', amount: 5 }, JAN)
    expect(await lowAt()).toEqual({ remaining: 5 })
    await identities.changeIdentityCredits(id, { op: 'set', remaining: null }, JAN)
    expect(await lowAt()).toBeNull()
  })

  holderCases(KEY_CREDITS, make, repeats)
  holderCases(KEY_CREDITS_BATCH, make, repeats)
  batchLeaseCases(make, repeats)
  holderCases(IDENTITY_POOL, make, repeats)
  identityPoolCases(make)
}

function holderCases(holder: CreditHolderAccess, make: () => Promise<StoreHarness>, repeats: number) {
  const { title } = holder
  async function ready(context: { skip(note: string): void }) {
    const { store } = await make()
    const missing = holder.missing(store)
    if (missing) context.skip(missing)
    return store
  }

  it(`${title}grants what is asked without a limit, and writes nothing`, async (context) => {
    const store = await ready(context)
    const plain = await holder.create(store, null)
    expect(leased(await holder.lease(store, plain, 50, 3, JAN))).toEqual({
      granted: 50,
      remaining: null,
      refill: null,
    })
    expect(await holder.balance(store, plain)).toBeNull()
  })

  it(`${title}leases at most the balance, nothing below \`need\`, and takes back what is returned`, async (context) => {
    const store = await ready(context)
    const id = await holder.create(store, 10)
    expect(leased(await holder.lease(store, id, 4, 1, JAN))).toEqual({
      granted: 4,
      remaining: 6,
      refill: null,
    })
    expect(leased(await holder.lease(store, id, 100, 1, JAN))).toEqual({
      granted: 6,
      remaining: 0,
      refill: null,
    })
    expect(leased(await holder.lease(store, id, 5, 1, JAN))).toEqual({
      granted: 0,
      remaining: 0,
      refill: null,
    })
    await holder.giveBack(store, id, 3)
    expect(leased(await holder.lease(store, id, 5, 4, JAN))).toEqual({
      granted: 0,
      remaining: 3,
      refill: null,
    })
    expect(await holder.balance(store, id)).toBe(3)
    expect(await holder.lease(store, crypto.randomUUID(), 5, 1, JAN)).toBeNull()
  })

  it(`${title}set, add and subtract the balance; a subtraction below zero and a change of an unlimited one are 422 and change nothing`, async (context) => {
    const store = await ready(context)
    const id = await holder.create(store, 10)
    const added = await holder.change(store, id, { op: 'add', amount: 5 }, JAN)
    expect(added?.before.remaining).toBe(10)
    expect(added?.remaining).toBe(15)
    const below = holder.change(store, id, { op: 'subtract', amount: 16 }, JAN)
    await expect(below).rejects.toMatchObject({ type: ErrorType.greaterThanEqual, status: 422 })
    expect(await holder.balance(store, id)).toBe(15)
    expect((await holder.change(store, id, { op: 'subtract', amount: 15 }, JAN))?.remaining).toBe(0)
    const set = await holder.change(store, id, { op: 'set', remaining: 40, refill: MONTHLY }, JAN)
    expect(set).toMatchObject({ remaining: 40, refill: MONTHLY })
    const unlimited = await holder.change(store, id, { op: 'set', remaining: null }, JAN)
    expect(unlimited?.before).toMatchObject({ remaining: 40, refill: MONTHLY })
    expect(unlimited).toMatchObject({ remaining: null, refill: null })
    await expect(holder.change(store, id, { op: 'add', amount: 1 }, JAN)).rejects.toMatchObject({
      status: 422,
    })
    expect(await holder.change(store, crypto.randomUUID(), { op: 'add', amount: 1 }, JAN)).toBeNull()
  })

  it(`${title}a monthly refill on day 31 tops the balance up once per month (February on its last day), however many callers ask at once`, async (context) => {
    const store = await ready(context)
    const id = await holder.create(store, 0, MONTHLY)
    let granted = 0
    // 12 simulated months: at each refill, and just before the next one, 8 callers race.
    for (let month = 0; month < 12; month++) {
      const refillAt = new Date(
        Date.UTC(2027, month, Math.min(31, new Date(Date.UTC(2027, month + 1, 0)).getUTCDate())),
      )
      const justBefore = new Date(refillAt.getTime() - 1)
      const before = await holder.lease(store, id, 1000, 1, justBefore)
      expect(before?.granted).toBe(0)
      const leases = await Promise.all(
        Array.from({ length: 8 }, (_, i) => holder.lease(store, id, 30, 1, new Date(refillAt.getTime() + i))),
      )
      for (const lease of leases) granted += lease?.granted ?? 0
      // 8 callers ask for 240: the one refill of the month gave 100, not more.
      expect(granted).toBe(100 * (month + 1))
      const later = await holder.lease(store, id, 1000, 1, new Date(refillAt.getTime() + 3_600_000))
      expect(later).toMatchObject({ granted: 0, remaining: 0 })
    }
  })

  it(`${title}concurrent leases never take more than the balance, and what they took plus the balance is what was granted`, async (context) => {
    const store = await ready(context)
    for (let round = 0; round < repeats; round++) {
      const id = await holder.create(store, 100)
      const leases = await Promise.all(
        Array.from({ length: 60 }, (_, i) => holder.lease(store, id, cost(i), cost(i), JAN)),
      )
      const taken = leases.reduce((sum, lease) => sum + (lease?.granted ?? 0), 0)
      expect(taken).toBeLessThanOrEqual(100)
      expect(taken).toBeGreaterThan(100 - 5)
      expect(taken + ((await holder.balance(store, id)) ?? Number.NaN)).toBe(100)
    }
  })

  it(`${title}add, subtract and set race leases without a lost update`, async (context) => {
    const store = await ready(context)
    for (let round = 0; round < repeats; round++) {
      const id = await holder.create(store, 1000)
      const leases = Array.from({ length: 40 }, (_, i) => holder.lease(store, id, cost(i), 1, JAN))
      const changes = Array.from({ length: 10 }, (_, i) =>
        holder.change(store, id, { op: i % 2 ? 'add' : 'subtract', amount: 7 + i }, JAN),
      )
      const [granted, changed] = await Promise.all([Promise.all(leases), Promise.all(changes)])
      const taken = granted.reduce((sum, lease) => sum + (lease?.granted ?? 0), 0)
      const moved = changed.reduce((sum, _, i) => sum + (i % 2 ? 1 : -1) * (7 + i), 0)
      expect(await holder.balance(store, id)).toBe(1000 + moved - taken)
      // A set: what leases took after it is what is missing from the value set.
      const setId = await holder.create(store, 1000)
      const racing = Array.from({ length: 40 }, (_, i) => holder.lease(store, setId, cost(i), 1, JAN))
      const set = holder.change(store, setId, { op: 'set', remaining: 500 }, JAN)
      const [afterSet, setResult] = await Promise.all([Promise.all(racing), set])
      const all = afterSet.reduce((sum, lease) => sum + (lease?.granted ?? 0), 0)
      const takenBefore = 1000 - (setResult?.before.remaining ?? Number.NaN)
      expect(await holder.balance(store, setId)).toBe(500 - (all - takenBefore))
    }
  })
}

// What only a batch of leases does: several keys in one call, each answered in its place.
function batchLeaseCases(make: () => Promise<StoreHarness>, repeats: number) {
  async function ready(context: { skip(note: string): void }) {
    const { store } = await make()
    const missing = KEY_CREDITS_BATCH.missing(store)
    if (missing) context.skip(missing)
    return store
  }
  // The first refill of the 31st's rule after JAN: February's last day.
  const FEB_REFILL = new Date('2027-02-28T00:00:00Z')

  it('leaseCreditsMany: answers each request in its place: a balance, no limit, unknown and malformed ids, a refill due once', async (context) => {
    const store = await ready(context)
    const balance = await KEY_CREDITS.create(store, 10)
    const unlimited = await KEY_CREDITS.create(store, null)
    const refilling = await KEY_CREDITS.create(store, 0, MONTHLY)
    const batch = [
      { id: balance, want: 4, need: 1 },
      { id: crypto.randomUUID(), want: 4, need: 1 },
      { id: unlimited, want: 50, need: 3 },
      { id: 'not-a-key-id', want: 4, need: 1 },
      { id: refilling, want: 30, need: 1 },
    ]
    expect(await store.leaseCreditsMany!(batch, FEB_REFILL)).toMatchObject([
      { granted: 4, remaining: 6, refill: null },
      null,
      { granted: 50, remaining: null, refill: null },
      null,
      { granted: 30, remaining: 70, refill: MONTHLY },
    ])
    // The same batch later in the period: no second refill.
    const later = new Date(FEB_REFILL.getTime() + 3_600_000)
    expect(await store.leaseCreditsMany!(batch, later)).toMatchObject([
      { granted: 4, remaining: 2, refill: null },
      null,
      { granted: 50, remaining: null, refill: null },
      null,
      { granted: 30, remaining: 40, refill: MONTHLY },
    ])
    // Nothing below `need`; an empty batch answers nothing.
    expect(await store.leaseCreditsMany!([{ id: balance, want: 5, need: 3 }], later)).toMatchObject([
      { granted: 0, remaining: 2, refill: null },
    ])
    expect(await store.leaseCreditsMany!([], later)).toEqual([])
    expect(await KEY_CREDITS.balance(store, balance)).toBe(2)
    expect(await KEY_CREDITS.balance(store, refilling)).toBe(40)
    expect(await KEY_CREDITS.balance(store, unlimited)).toBeNull()
  })

  it('leaseCreditsMany: concurrent batches over the same keys, in different orders and beside single leases, never grant more than the balance, and a due refill once', async (context) => {
    const store = await ready(context)
    for (let round = 0; round < Math.max(1, Math.floor(repeats / 2)); round++) {
      // Half the keys hold 100; the other half hold 0 with a refill to 100 due at FEB_REFILL.
      const ids = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          i % 2 ? KEY_CREDITS.create(store, 0, MONTHLY) : KEY_CREDITS.create(store, 100),
        ),
      )
      const granted = new Map(ids.map((id) => [id, 0]))
      const count = (id: string, lease: CreditLease | null) =>
        granted.set(id, granted.get(id)! + (lease?.granted ?? 0))
      // Two processes' spenders: 8 batches each asking every key for 15 to 19, in rotated orders,
      // and 24 single leases among them.
      const batches = Array.from({ length: 8 }, async (_, b) => {
        const order = [...ids.slice(b % ids.length), ...ids.slice(0, b % ids.length)]
        if (b % 2) order.reverse()
        const leases = await store.leaseCreditsMany!(
          order.map((id, i) => ({ id, want: 15 + ((b + i) % 5), need: 1 })),
          new Date(FEB_REFILL.getTime() + b),
        )
        expect(leases).toHaveLength(order.length)
        for (const [i, lease] of leases.entries()) count(order[i]!, lease)
      })
      const singles = Array.from({ length: 24 }, async (_, i) => {
        const id = ids[i % ids.length]!
        count(id, await store.leaseCredits!(id, 10, 1, new Date(FEB_REFILL.getTime() + i)))
      })
      await Promise.all([...batches, ...singles])
      for (const id of ids) {
        const taken = granted.get(id)!
        // 8 batches and 2 singles ask for at least 140: all 100, never more.
        expect(taken).toBe(100)
        expect(taken + ((await KEY_CREDITS.balance(store, id)) ?? Number.NaN)).toBe(100)
      }
    }
  })
}

// What only an identity's pool does: its audit rows in the change's transaction, and the feed of
// its keys when the change starts or ends the pool.
function identityPoolCases(make: () => Promise<StoreHarness>) {
  it("an identity's pool: a change calls its audit with the identity after and before, and a failing audit changes nothing", async (context) => {
    const { store } = await make()
    const missing = IDENTITY_POOL.missing(store)
    if (missing) return context.skip(missing)
    const identities = store.identities!
    const id = await IDENTITY_POOL.create(store, 10)
    const later = new Date(JAN.getTime() + 60_000)
    const seen: [number | null, number | null | undefined][] = []
    const rows: AuditEntry[] = []
    const changed = await identities.changeIdentityCredits(
      id,
      { op: 'add', amount: 5 },
      later,
      (identity, keys, before) => {
        seen.push([identity.remaining, before?.remaining])
        expect(keys).toEqual([])
        return rows
      },
    )
    expect(seen).toEqual([[15, 10]])
    expect(changed?.identity).toMatchObject({ remaining: 15, updatedAt: later })
    expect(await identities.findIdentity(id)).toEqual(changed?.identity)
    const failing = identities.changeIdentityCredits(id, { op: 'add', amount: 5 }, later, () => {
      throw new Error('the audit log is full')
    })
    await expect(failing).rejects.toThrow('the audit log is full')
    expect(await IDENTITY_POOL.balance(store, id)).toBe(15)
  })

  it("an identity's pool: a change between no pool and a pool reaches the change feed for each of its keys", async (context) => {
    const { store } = await make()
    const missing = IDENTITY_POOL.missing(store)
    if (missing) return context.skip(missing)
    const feed = store.changes
    if (!feed) return context.skip('the store has no change feed (store.changes)')
    await until(() => feed.connected)
    const id = await IDENTITY_POOL.create(store, null)
    const { projectId } = (await store.identities!.findIdentity(id))!
    const keys = await Promise.all(
      [1, 2].map(async () =>
        store.insertKey({ ...(await recordFor(undefined, 'project', projectId)), identityId: id }),
      ),
    )
    for (const change of [
      { op: 'set', remaining: 100 },
      { op: 'set', remaining: null },
    ] as const) {
      const heard: KeyChangeEvent[] = []
      const stop = feed.subscribe((event) => heard.push(event))
      try {
        await store.identities!.changeIdentityCredits(id, change, JAN)
        const hashes = () => new Set(heard.flatMap((event) => (event.type === 'changed' ? [event.hash] : [])))
        await until(() => keys.every((key) => hashes().has(key.hash)))
      } finally {
        stop()
      }
    }
  })
}
