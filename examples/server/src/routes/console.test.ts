// What the administrative console asks of the server, through @keyward/client: paged listings,
// the developer's projects, a key's expiry, and why a key was revoked.
import { createClient, KeywardApiError, type KeywardClient } from '@keyward/client'
import { createKeyward, hashKey } from '@keyward/core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeBackends } from '../test/databases.js'
import { openTestApp, type TestApp } from '../test/harness.js'

const BASE = 'http://keyward.test'

describeBackends('the console API through @keyward/client (%s)', (backend) => {
  let t: TestApp
  let client: KeywardClient
  beforeAll(async () => {
    t = await openTestApp(backend)
    const developerKey = await t.developer('dev_console')
    // The client's requests go to the app in process; every answer is checked against the OpenAPI document.
    const fetch = async (url: string, init: RequestInit) => {
      const answer = await t.call(init.method ?? 'GET', url.slice(BASE.length), {
        headers: init.headers as Record<string, string>,
        ...(typeof init.body === 'string' ? { body: init.body } : {}),
      })
      return new Response(answer.text, { status: answer.status, headers: answer.headers })
    }
    client = createClient({ baseUrl: BASE, developerKey, fetch })
  })
  afterAll(() => t.close())

  it("lists the developer's projects newest first, a page at a time, each once", async () => {
    const created: string[] = []
    for (let i = 0; i < 5; i++) created.push((await client.projects.create({ name: `p${i}` })).project.id)
    const first = await client.projects.list({ limit: 2 })
    expect(first.projects.map((p) => p.name)).toEqual(['p4', 'p3'])
    expect(first.next_cursor).toEqual(expect.any(String))
    const all: string[] = []
    for await (const project of client.projects.listAll({ limit: 2 })) all.push(project.id)
    expect(all).toEqual([...created].reverse())
    const theirs = await t.call('GET', '/api/v1/projects', { headers: { 'x-developer-key': t.developerKey } })
    expect(theirs.body.projects.map((p: { id: string }) => p.id)).not.toContain(created[0])
  })

  it("walks a project's 45 keys in pages of 7: every key once, newest first", async () => {
    const { project } = await client.projects.create({ name: 'many keys' })
    const ids = [(await client.apiKeys.list(project.id)).keys[0]!.id]
    for (let i = 0; i < 44; i++) ids.push((await client.apiKeys.create(project.id, { name: `k${i}` })).id)
    const walked: string[] = []
    let cursor: string | null = null
    do {
      const page: Awaited<ReturnType<typeof client.apiKeys.list>> = await client.apiKeys.list(project.id, {
        limit: 7,
        cursor,
      })
      expect(page.keys.length).toBeLessThanOrEqual(7)
      walked.push(...page.keys.map((k) => k.id))
      cursor = page.next_cursor
    } while (cursor)
    expect(new Set(walked).size).toBe(45)
    expect(walked.sort()).toEqual([...ids].sort())
    const listed = []
    for await (const key of client.apiKeys.listAll(project.id)) listed.push(key)
    const times = listed.map((k) => k.created_at)
    expect(times).toEqual([...times].sort().reverse())
  })

  it('answers a bad page with 422 at the query parameter', async () => {
    const bad = await client.developerKeys.list({ cursor: 'garbage' }).catch((error: unknown) => error)
    expect(bad).toBeInstanceOf(KeywardApiError)
    expect(bad).toMatchObject({ status: 422, type: 'value_error', detail: [{ loc: ['query', 'cursor'] }] })
    const limit = await client.projects.list({ limit: 0 }).catch((error: unknown) => error)
    expect(limit).toMatchObject({ status: 422, detail: [{ loc: ['query', 'limit'] }] })
  })

  it('sets and clears an expiry, and refuses a key in its grace window', async () => {
    const { project, api_key } = await client.projects.create({ name: 'expiring' })
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString()
    const set = await client.apiKeys.setExpiry(project.id, api_key.id, { expires_at: expiresAt })
    expect(set).toMatchObject({ id: api_key.id, expires_at: expiresAt })
    expect(
      (await client.apiKeys.setExpiry(project.id, api_key.id, { expires_at: null })).expires_at,
    ).toBeNull()
    const developerKey = await client.developerKeys.create({ name: 'to expire' })
    const inDays = await client.developerKeys.setExpiry(developerKey.id, { expires_in_days: 3 })
    expect(inDays.expires_at).toEqual(expect.stringMatching(/^\d{4}-/))
    await client.apiKeys.roll(project.id, api_key.id, { grace_seconds: 60 })
    const refused = await client.apiKeys
      .setExpiry(project.id, api_key.id, { expires_in_days: 30 })
      .catch((error: unknown) => error)
    expect(refused).toMatchObject({ status: 409, type: 'key_rolled' })
  })

  it('says why a key was revoked: leaked, revoked, rolled, or null', async () => {
    const { project, api_key } = await client.projects.create({ name: 'reasons' })
    const revoked = await client.apiKeys.create(project.id, { name: 'revoked' })
    const rolled = await client.apiKeys.create(project.id, { name: 'rolled' })
    await client.apiKeys.deactivate(project.id, revoked.id)
    await client.apiKeys.roll(project.id, rolled.id)
    await createKeyward({ store: t.store }).revokeLeakedKeys([{ hash: await hashKey(api_key.key) }])
    const reasons = Object.fromEntries(
      (await client.apiKeys.list(project.id)).keys.map((k) => [k.name, k.revoked_reason]),
    )
    expect(reasons).toEqual({ default: 'leaked', revoked: 'revoked', rolled: 'rolled' })
  })
})
