// The walk-through of docs/identities.md ("In your framework"), over HTTP against a running
// example: an identity with 100 credits and 10 requests a second, two API keys of it, and the
// example's protected route called with both in turn until both stop together.
import { expect } from 'vitest'

/** An answer of the protected route, as the walk-through reads it. */
interface Answer {
  readonly status: number
  readonly type?: string
  readonly msg?: string
  /** `Retry-After`, in seconds, or 0 without one. */
  readonly retryAfter: number
}

const LIMIT = { name: 'requests', limit: 10, duration: 1000 }
const POOL = 100

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Walks docs/identities.md's steps against the example at `url`, with its owner's developer key,
 * and checks what they answer. It depends on no machine's speed: an accepted request is counted
 * whenever it comes, a refusal by the limit is waited out (its `Retry-After`), and the checks that
 * need one window (10 requests pass, then both keys are refused) apply to the windows the requests
 * fit in. `hello` is the path of the route behind an API key of proj_1.
 */
export async function walkIdentities(url: string, developerKey: string, hello: string): Promise<void> {
  const project = `${url}/api/v1/projects/proj_1`
  const post = async (path: string, body: object) => {
    const response = await fetch(`${project}${path}`, {
      method: 'POST',
      headers: { 'X-Developer-Key': developerKey, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
    return [response.status, (await response.json()) as Record<string, unknown>] as const
  }

  // 1. The identity: the customer, its pool of 100 credits and its limit of 10 a second.
  const [created, identity] = await post('/identities', {
    external_id: 'customer_acme',
    remaining: POOL,
    ratelimits: [LIMIT],
  })
  expect([created, identity]).toMatchObject([201, { remaining: POOL, ratelimits: [LIMIT] }])
  // 2. Two API keys of it.
  const keys: string[] = []
  for (const name of ['production', 'staging']) {
    const [status, key] = await post('/api-keys', { name, identity_id: identity.id })
    expect([status, key.identity_id]).toEqual([201, identity.id])
    keys.push(String(key.key))
  }

  // 3. The route, with each key in turn.
  let turn = 0
  const ask = async (key = keys[turn++ % 2]!): Promise<Answer> => {
    const response = await fetch(`${url}${hello}`, { headers: { 'X-API-Key': key } })
    const body = (await response.json()) as { detail?: { type: string; msg: string }[] }
    const retryAfter = Number(response.headers.get('retry-after') ?? 0)
    return { status: response.status, ...body.detail?.[0], retryAfter }
  }
  const isRateLimited = (answer: Answer) => {
    if (answer.type !== 'rate_limited') return false
    expect(answer.status).toBe(429)
    expect(answer.msg).toContain("The rate limit `requests` of this API key's identity is spent")
    expect(answer.retryAfter).toBeGreaterThan(0)
    return true
  }
  // Waits out a refusal by the limit; the memory counters may end a window up to 10 ms late.
  const waitOut = (answer: Answer) => sleep(answer.retryAfter * 1000 + 50)

  let accepted = 0
  let windowsSeen = 0
  const deadline = Date.now() + 45_000
  for (let round = Date.now(), inRound = 0; ; ) {
    expect(Date.now(), `${accepted} requests accepted so far`).toBeLessThan(deadline)
    const answer = await ask()
    if (answer.status === 200) {
      accepted++
      inRound++
      continue
    }
    if (answer.type === 'usage_exceeded') break
    expect(isRateLimited(answer), JSON.stringify(answer)).toBe(true)
    // The other key, right after: refused too, the limit is the identity's.
    const other = await ask()
    if (other.status === 200) accepted++
    else if (other.type !== 'usage_exceeded') expect(isRateLimited(other)).toBe(true)
    // A round that took less than the window was one window: exactly 10 passed, then both stopped.
    if (Date.now() - round < LIMIT.duration) {
      expect([inRound, other.type]).toEqual([LIMIT.limit, 'rate_limited'])
      windowsSeen++
    }
    await waitOut(answer)
    round = Date.now()
    inRound = 0
  }
  expect(accepted).toBe(POOL)
  expect(windowsSeen, 'windows that fit 11 requests').toBeGreaterThan(0)

  // 4. Both keys stop together: the pool is spent, whichever key asks.
  for (const key of keys) {
    let answer = await ask(key)
    while (isRateLimited(answer)) {
      await waitOut(answer)
      answer = await ask(key)
    }
    expect([answer.status, answer.type]).toEqual([429, 'usage_exceeded'])
    expect(answer.msg).toContain("The credits of this API key's identity are spent")
  }
}
