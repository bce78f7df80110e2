// What a stored rate limit costs a verification: the API-key guard on a cached key without a
// stored limit against the same guard on a key with one (never spent: 10^9 per day), in one
// process, compared by CPU time in alternating pairs of batches. Without `protection` the guard
// answers a cached key at once and the limit is counted in the service's own memory; with
// `protection`, by its RateLimiterMemory, through the guard's promise. An identity's limit is
// the same work under the identity's id.
import { apiKeyGuard, createKeyward, MemoryKeyStore } from '@keyward/core'
import { RateLimiterMemory } from 'rate-limiter-flexible'
import { machineLine, pairedCpu, table } from './harness.mjs'

const LIMIT = [{ name: 'requests', limit: 1e9, duration: 86_400_000 }]
const request = (key) => ({
  method: 'GET',
  url: '/',
  params: {},
  header: (name) => (name === 'x-api-key' ? key : undefined),
  address: '192.0.2.1',
})

async function service(protection) {
  const keyward = createKeyward({
    store: new MemoryKeyStore(),
    cache: {},
    trackLastUsed: false,
    ...(protection ? { protection } : {}),
  })
  const plain = request((await keyward.issueProjectKey('p1')).key)
  const limited = request((await keyward.issueProjectKey('p1', { ratelimits: LIMIT })).key)
  const identity = await keyward.createIdentity('p1', { externalId: 'customer', ratelimits: LIMIT })
  const member = request((await keyward.issueProjectKey('p1', { identityId: identity.id })).key)
  const guard = apiKeyGuard(keyward)
  const accepted = (result) => {
    if (!result.ok) throw new Error(result.response.body)
  }
  // The guard's answer at once when it has one (a cached key without protection), else its promise.
  const call = (r) => {
    const known = guard.now?.(r)
    return known ? accepted(known) : guard(r).then(accepted)
  }
  for (const r of [plain, limited, member]) accepted(await guard(r)) // fills the cache
  return { call, plain, limited, member }
}

const rows = []
for (const [name, protection] of [
  ['no protection (at once, counted in memory)', undefined],
  [
    'protection: RateLimiterMemory (a promise)',
    { limiter: (s) => new RateLimiterMemory(s), failedAuthLimit: 0 },
  ],
]) {
  const s = await service(protection)
  for (const [what, limited] of [
    ["the key's own limit", s.limited],
    ["its identity's limit", s.member],
  ]) {
    const paired = await pairedCpu(
      () => s.call(s.plain),
      () => s.call(limited),
    )
    rows.push([name, what, paired.a.toFixed(0), paired.b.toFixed(0), paired.ratio.toFixed(3)])
  }
}

console.log('Cached verification through apiKeyGuard, without and with one stored rate limit:\n')
table(['service', 'stored limit', 'without, CPU ns/op', 'with, CPU ns/op', 'with / without'], rows)
console.log(`\nMedian of 41 alternating pairs of 20,000 verifications. ${machineLine()}`)
