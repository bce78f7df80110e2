// What the abuse protection costs a valid request: the project guard on a memory store, without
// protection, with the failed-verification throttle (counters in RateLimiterMemory), and with a
// per-key rate limit on top; and what a refusal by the throttle costs.
import { createKeyward, MemoryKeyStore, projectGuard } from '@keyward/core'
import { RateLimiterMemory } from 'rate-limiter-flexible'
import { machineLine, measure, table } from './harness.mjs'

const limiter = (settings) => new RateLimiterMemory(settings)
const services = {
  none: undefined,
  throttle: { limiter },
  'throttle + key rate limit': { limiter, keyRateLimits: { project: { limit: 1e9, windowSeconds: 3600 } } },
}
const request = (key, address) => ({
  method: 'GET',
  url: '/',
  params: { project_id: 'p1' },
  header: (name) => (name === 'x-api-key' ? key : undefined),
  address,
})

const cases = []
for (const [name, protection] of Object.entries(services)) {
  const keyward = createKeyward({ store: new MemoryKeyStore(), ...(protection ? { protection } : {}) })
  const key = (await keyward.issueProjectKey('p1')).key
  const guard = projectGuard(keyward)
  const valid = request(key, '192.0.2.1')
  cases.push({
    name: `valid key, protection: ${name}`,
    fn: () =>
      guard(valid).then((r) => {
        if (!r.ok) throw new Error(r.response.body)
      }),
    async: true,
  })
}
{
  const keyward = createKeyward({ store: new MemoryKeyStore(), protection: { limiter, failedAuthLimit: 1 } })
  const guard = projectGuard(keyward)
  await guard(request(`ak_${'Q'.repeat(32)}`, '203.0.113.9'))
  const throttled = request(`ak_${'R'.repeat(32)}`, '203.0.113.9')
  cases.push({
    name: 'refused by the throttle (429)',
    fn: () =>
      guard(throttled).then((r) => {
        if (r.ok || r.response.status !== 429) throw new Error('not throttled')
      }),
    async: true,
  })
}

const results = await measure(cases)
const base = results.get('valid key, protection: none')
table(
  ['case', 'ns/op', 'ratio to no protection'],
  [...results].map(([name, ns]) => [name, ns.toFixed(0), (ns / base).toFixed(2)]),
)
console.log(`\n${machineLine()}`)
