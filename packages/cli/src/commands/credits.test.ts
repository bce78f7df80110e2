import { createKeyward, MemoryKeyStore } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import { EXIT } from '../exit.js'
import { harness, STORE } from '../test/harness.js'

describe('keyward keys credits', () => {
  it('creates a key with credits and a refill, lists them, and sets, adds and subtracts', async () => {
    const cli = harness()
    const created = await cli.run(
      'keys',
      'create',
      '--project',
      'proj_1',
      '--credits',
      '100',
      '--refill',
      '100:monthly:31',
      '--credits-low-at',
      '20',
      '--json',
      ...STORE,
    )
    expect(created.code, created.stderr).toBe(EXIT.ok)
    const key = JSON.parse(created.stdout)
    expect(key).toMatchObject({
      remaining: 100,
      refill: { amount: 100, interval: 'monthly', day: 31 },
      credits_low_at: { remaining: 20 },
    })
    const listed = await cli.run('keys', 'list', '--project', 'proj_1', ...STORE)
    expect(listed.stdout).toContain('credits 100')
    const added = await cli.run('keys', 'credits', key.id, '--add', '50', ...STORE)
    expect(added).toEqual({ code: EXIT.ok, stdout: `Credits of key ${key.id}: 150.\n`, stderr: '' })
    const subtracted = await cli.run('keys', 'credits', key.id, '--subtract', '150', '--json', ...STORE)
    expect(JSON.parse(subtracted.stdout)).toMatchObject({ remaining: 0 })
    const set = await cli.run('keys', 'credits', key.id, '--set', 'unlimited', ...STORE)
    expect(set.stdout).toBe(`Credits of key ${key.id}: unlimited.\n`)
    expect((await cli.keyward().findKey(key.id))?.remaining ?? null).toBeNull()
  })

  it("changes a key's low-credits threshold with keys update --credits-low-at, removes it with none, and refuses one the credits cannot have", async () => {
    const cli = harness()
    const keyward = cli.keyward()
    const { record } = await keyward.issueProjectKey('proj_1', {
      remaining: 100,
      refill: { amount: 100, interval: 'daily' },
    })
    const lowAt = async () => (await cli.keyward().findKey(record.id))?.creditsLowAt ?? null
    const set = await cli.run('keys', 'update', record.id, '--credits-low-at', '10%', '--json', ...STORE)
    expect(set.code, set.stderr).toBe(EXIT.ok)
    expect(JSON.parse(set.stdout)).toMatchObject({ credits_low_at: { percent: 10 } })
    expect(await lowAt()).toEqual({ percent: 10 })
    const cleared = await cli.run('keys', 'update', record.id, '--credits-low-at', 'none', ...STORE)
    expect(cleared.code, cleared.stderr).toBe(EXIT.ok)
    expect(await lowAt()).toBeNull()
    const plain = (await keyward.issueProjectKey('proj_1')).record
    const refused = await cli.run('keys', 'update', plain.id, '--credits-low-at', '5', ...STORE)
    expect(refused.code).toBe(EXIT.usage)
    expect(refused.stderr).toContain('--credits-low-at: A low-credits threshold needs a credit limit')
    const bad = await cli.run('keys', 'update', record.id, '--credits-low-at', 'low', ...STORE)
    expect(bad.code).toBe(EXIT.usage)
    expect(bad.stderr).toContain('or none')
    expect(await lowAt()).toBeNull()
  })

  it('refuses a subtraction below zero, bad numbers and a refill day of 32 with a usage error, changing nothing', async () => {
    const cli = harness()
    const { record } = await cli.keyward().issueProjectKey('proj_1', { remaining: 10 })
    const below = await cli.run('keys', 'credits', record.id, '--subtract', '11', ...STORE)
    expect(below.code).toBe(EXIT.usage)
    expect(below.stderr).toContain('Cannot subtract 11 credits: the key holds 10.')
    expect((await cli.run('keys', 'credits', record.id, '--add', '-5', ...STORE)).code).toBe(EXIT.usage)
    expect(
      (await cli.run('keys', 'credits', record.id, '--add', '1', '--subtract', '1', ...STORE)).code,
    ).toBe(EXIT.usage)
    const day32 = await cli.run(
      'keys',
      'credits',
      record.id,
      '--set',
      '5',
      '--refill',
      '5:monthly:32',
      ...STORE,
    )
    expect(day32.code).toBe(EXIT.usage)
    expect((await cli.keyward().findKey(record.id))?.remaining).toBe(10)
    const unknown = await cli.run('keys', 'credits', crypto.randomUUID(), '--add', '1', ...STORE)
    expect(unknown.code).toBe(EXIT.failed)
  })

  it('records each change as an audit row by the operator, shown by keyward audit list', async () => {
    const cli = harness({ env: { KEYWARD_OPERATOR: 'alice' } })
    const { record } = await cli.keyward().issueProjectKey('proj_1', { remaining: 10 })
    expect((await cli.run('keys', 'credits', record.id, '--add', '5', ...STORE)).code).toBe(EXIT.ok)
    expect((await cli.run('keys', 'credits', record.id, '--subtract', '99', ...STORE)).code).toBe(EXIT.usage)
    const listed = await cli.run('audit', 'list', '--json', ...STORE)
    const rows = JSON.parse(listed.stdout).entries.filter(
      (e: { action: string }) => e.action === 'key.credits_changed',
    )
    expect(rows).toEqual([
      expect.objectContaining({
        actor: { type: 'operator', name: 'alice' },
        target: { type: 'key', id: record.id },
        before: { key_prefix: record.keyPrefix, remaining: 10 },
        after: { key_prefix: record.keyPrefix, remaining: 15, op: 'add', amount: 5 },
      }),
    ])
    const text = await cli.run('audit', 'list', ...STORE)
    expect(text.stdout.split('\n')[1]).toContain('key.credits_changed')
  })
})

describe('keyward identities credits', () => {
  it("sets, adds to and subtracts from an identity's pool, and records each change as an audit row", async () => {
    // One store for every run: identities live beside the keys.
    const store = new MemoryKeyStore()
    const keyward = createKeyward({ store })
    const cli = harness({ env: { KEYWARD_OPERATOR: 'alice' }, store: () => store })
    const acme = await keyward.createIdentity('proj_1', { externalId: 'customer_acme' })
    const set = await cli.run(
      'identities',
      'credits',
      acme.id,
      '--set',
      '100',
      '--refill',
      '100:daily',
      ...STORE,
    )
    expect(set).toEqual({ code: EXIT.ok, stdout: `Credits of identity ${acme.id}: 100.\n`, stderr: '' })
    const added = await cli.run('identities', 'credits', acme.id, '--add', '50', '--json', ...STORE)
    expect(JSON.parse(added.stdout)).toMatchObject({
      id: acme.id,
      external_id: 'customer_acme',
      remaining: 150,
      refill: { amount: 100, interval: 'daily' },
    })
    const below = await cli.run('identities', 'credits', acme.id, '--subtract', '151', ...STORE)
    expect(below.code).toBe(EXIT.usage)
    expect(below.stderr).toContain('Cannot subtract 151 credits: the identity holds 150.')
    expect((await keyward.findIdentity(acme.id))?.remaining).toBe(150)
    const unlimited = await cli.run('identities', 'credits', acme.id, '--set', 'unlimited', ...STORE)
    expect(unlimited.stdout).toBe(`Credits of identity ${acme.id}: unlimited.\n`)
    const unknown = await cli.run('identities', 'credits', crypto.randomUUID(), '--add', '1', ...STORE)
    expect(unknown.code).toBe(EXIT.failed)
    const listed = await cli.run('audit', 'list', '--json', ...STORE)
    const rows = JSON.parse(listed.stdout).entries.filter(
      (e: { action: string }) => e.action === 'identity.credits_changed',
    )
    expect(rows).toHaveLength(3)
    expect(rows.at(-1)).toMatchObject({
      actor: { type: 'operator', name: 'alice' },
      target: { type: 'identity', id: acme.id },
      after: { external_id: 'customer_acme', remaining: 100, op: 'set', amount: 100 },
    })
  })
})
