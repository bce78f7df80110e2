import { createKeyward, MemoryKeyStore } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import { EXIT } from '../exit.js'
import { harness, STORE } from '../test/harness.js'

// One store for every run (identities live beside the keys), and a service over it to arrange and check.
function world() {
  const store = new MemoryKeyStore()
  const cli = harness({ store: () => store })
  const keyward = () => createKeyward({ store })
  const run = (...argv: string[]) => cli.run(...argv, ...STORE)
  // `identities create` of proj_1, with more options.
  const create = (externalId: string, ...more: string[]) =>
    run('identities', 'create', '--project', 'proj_1', '--external-id', externalId, ...more)
  return { cli, keyward, run, create }
}

describe('keyward identities', () => {
  it('creates an identity with metadata, rate limits and credits; lists, finds and shows it', async () => {
    const { run, create } = world()
    const created = await create(
      'customer_acme',
      '--metadata',
      '{"plan":"pro"}',
      '--ratelimit',
      'requests:10/1s',
      '--ratelimit',
      'daily:1000/1d',
      '--credits',
      '100',
      '--refill',
      '100:daily',
      '--credits-low-at',
      '10%',
      '--json',
    )
    expect(created.code, created.stderr).toBe(EXIT.ok)
    const acme = JSON.parse(created.stdout)
    expect(acme).toMatchObject({
      project_id: 'proj_1',
      external_id: 'customer_acme',
      metadata: { plan: 'pro' },
      ratelimits: [
        { name: 'requests', limit: 10, duration: 1000 },
        { name: 'daily', limit: 1000, duration: 86_400_000 },
      ],
      remaining: 100,
      refill: { amount: 100, interval: 'daily' },
      credits_low_at: { percent: 10 },
    })
    const text = await run('identities', 'create', '--project', 'proj_1', '--external-id', 'customer_initech')
    expect(text.stdout).toMatch(/^Created identity [0-9a-f-]{36} \(customer_initech\) of project proj_1\.\n$/)

    const listed = await run('identities', 'list', '--project', 'proj_1')
    expect(listed.code).toBe(EXIT.ok)
    expect(listed.stdout).toContain('requests 10 per 1s, daily 1000 per 1d')
    expect(listed.stdout).toContain('100 (refill 100 daily)')
    expect(listed.stdout).toMatch(/\n2 identities\.\n$/)
    const page = JSON.parse(
      (await run('identities', 'list', '--project', 'proj_1', '--limit', '1', '--json')).stdout,
    )
    expect(page.identities).toHaveLength(1)
    const rest = await run(
      'identities',
      'list',
      '--project',
      'proj_1',
      '--cursor',
      page.next_cursor,
      '--json',
    )
    expect(JSON.parse(rest.stdout).identities).toHaveLength(1)

    const found = await run(
      'identities',
      'list',
      '--project',
      'proj_1',
      '--external-id',
      'customer_acme',
      '--json',
    )
    expect(JSON.parse(found.stdout)).toEqual({ identities: [acme], next_cursor: null })
    const none = await run('identities', 'list', '--project', 'proj_1', '--external-id', 'customer_z')
    expect(none.stdout).toBe('No identities with external id customer_z in project proj_1.\n')

    const shown = await run('identities', 'get', acme.id)
    expect(shown.stdout).toContain('  External id  customer_acme\n')
    expect(shown.stdout).toContain('  Metadata     {"plan":"pro"}\n')
    expect(JSON.parse((await run('identities', 'get', acme.id, '--json')).stdout)).toEqual(acme)
  })

  it('refuses a duplicate external id (exit 1) and bad options (exit 2), creating nothing', async () => {
    const { run, keyward } = world()
    await run('identities', 'create', '--project', 'proj_1', '--external-id', 'customer_acme')
    const twice = await run('identities', 'create', '--project', 'proj_1', '--external-id', 'customer_acme')
    expect(twice).toEqual({
      code: EXIT.failed,
      stdout: '',
      stderr: 'keyward: The project has an identity with this external_id already.\n',
    })
    for (const [args, message] of [
      [['--external-id', 'x', '--ratelimit', 'requests:10'], '--ratelimit must be NAME:LIMIT/DURATION'],
      [['--external-id', 'x', '--ratelimit', 'requests:10/2d'], '--ratelimit (value 1): '],
      [
        ['--external-id', `ak_${'Zq9x'.repeat(8)}`],
        '--external-id: The value holds something shaped like a key',
      ],
      [['--external-id', 'x', '--metadata', '[1]'], '--metadata: '],
      [['--external-id', 'x', '--refill', '5:daily'], '--refill: A refill needs a credit limit'],
      [[], '--external-id is required.'],
    ] as const) {
      const refused = await run('identities', 'create', '--project', 'proj_1', ...args)
      expect([args, refused.code, refused.stderr]).toEqual([
        args,
        EXIT.usage,
        expect.stringContaining(message),
      ])
    }
    const { records } = await keyward().listIdentitiesPage('proj_1')
    expect(records.map((identity) => identity.externalId)).toEqual(['customer_acme'])
  })

  it('updates metadata and limits, and clears them', async () => {
    const { run } = world()
    const acme = JSON.parse(
      (await run('identities', 'create', '--project', 'proj_1', '--external-id', 'customer_acme', '--json'))
        .stdout,
    )
    const updated = await run(
      'identities',
      'update',
      acme.id,
      '--metadata',
      '{"plan":"enterprise"}',
      '--ratelimit',
      'requests:5/1m',
      '--json',
    )
    expect(JSON.parse(updated.stdout)).toMatchObject({
      metadata: { plan: 'enterprise' },
      ratelimits: [{ name: 'requests', limit: 5, duration: 60_000 }],
    })
    const cleared = await run(
      'identities',
      'update',
      acme.id,
      '--clear-metadata',
      '--clear-ratelimits',
      '--json',
    )
    expect(JSON.parse(cleared.stdout)).toMatchObject({ metadata: null, ratelimits: [] })
    expect((await run('identities', 'update', acme.id)).code).toBe(EXIT.usage)
    expect((await run('identities', 'update', acme.id, '--metadata', '{}', '--clear-metadata')).code).toBe(
      EXIT.usage,
    )
    const unknown = await run('identities', 'update', crypto.randomUUID(), '--clear-metadata')
    expect(unknown.code).toBe(EXIT.failed)
  })

  it("changes the pool's low-credits threshold with --credits-low-at, removes it with none, and refuses one the pool cannot have", async () => {
    const { run, create, keyward } = world()
    const pooled = JSON.parse((await create('customer_pool', '--credits', '100', '--json')).stdout)
    const set = await run('identities', 'update', pooled.id, '--credits-low-at', '25', '--json')
    expect(set.code, set.stderr).toBe(EXIT.ok)
    expect(JSON.parse(set.stdout)).toMatchObject({ credits_low_at: { remaining: 25 } })
    // A percent needs a refill rule, which this pool has not.
    const percent = await run('identities', 'update', pooled.id, '--credits-low-at', '10%')
    expect(percent.code).toBe(EXIT.usage)
    expect(percent.stderr).toContain('--credits-low-at')
    expect((await keyward().findIdentity(pooled.id))?.creditsLowAt).toEqual({ remaining: 25 })
    const cleared = await run('identities', 'update', pooled.id, '--credits-low-at', 'none')
    expect(cleared.code, cleared.stderr).toBe(EXIT.ok)
    expect((await keyward().findIdentity(pooled.id))?.creditsLowAt ?? null).toBeNull()
  })

  it('gives an identity roles by name at creation, replaces and clears them, and shows them by name', async () => {
    const { run, create, keyward } = world()
    const billing = await keyward().createRole('proj_1', { name: 'billing', permissions: [] })
    await keyward().createRole('proj_1', { name: 'support', permissions: [] })
    const created = await create('customer_acme', '--role', 'billing', '--role', 'support', '--json')
    expect(created.code, created.stderr).toBe(EXIT.ok)
    const acme = JSON.parse(created.stdout)
    expect(acme.roles).toEqual(['billing', 'support'])
    expect((await keyward().findIdentity(acme.id))?.roleIds).toContain(billing.id)
    const shown = await run('identities', 'get', acme.id)
    expect(shown.stdout).toContain('  Roles        billing, support\n')
    const listed = JSON.parse((await run('identities', 'list', '--project', 'proj_1', '--json')).stdout)
    expect(listed.identities[0].roles).toEqual(['billing', 'support'])
    const pooled = await run('identities', 'credits', acme.id, '--set', '10', '--json')
    expect(JSON.parse(pooled.stdout)).toMatchObject({ remaining: 10, roles: ['billing', 'support'] })
    const replaced = await run('identities', 'update', acme.id, '--role', 'support', '--json')
    expect(JSON.parse(replaced.stdout).roles).toEqual(['support'])
    const cleared = await run('identities', 'update', acme.id, '--clear-roles', '--json')
    expect(JSON.parse(cleared.stdout).roles).toBeNull()
    expect((await run('identities', 'get', acme.id)).stdout).toContain('  Roles        -\n')
    expect((await run('identities', 'update', acme.id, '--role', 'x', '--clear-roles')).code).toBe(EXIT.usage)
    const unknown = await run('identities', 'update', acme.id, '--role', 'auditor')
    expect(unknown.code).toBe(EXIT.usage)
    expect(unknown.stderr).toContain('--role')
    expect(unknown.stderr).toContain('auditor')
    const refused = await create('customer_initech', '--role', 'auditor')
    expect(refused.code).toBe(EXIT.usage)
    expect(await keyward().findIdentityByExternalId('proj_1', 'customer_initech')).toBeNull()

    await run('identities', 'update', acme.id, '--role', 'support')
    const [support] = await keyward().findRolesByName('proj_1', ['support'])
    const held = await run('roles', 'delete', support!.id)
    expect([held.code, held.stderr]).toEqual([
      EXIT.failed,
      'keyward: 1 identity holds the role: take it from them first, or delete it with --detach.\n',
    ])
    const detached = await run('roles', 'delete', support!.id, '--detach')
    expect(detached.stdout).toBe(`Deleted role ${support!.id} (support), taken from 1 identity.\n`)
    expect((await keyward().findIdentity(acme.id))?.roleIds ?? null).toBeNull()
  })

  it('joins keys by keys create and keys update, lists them, and deletes only with --revoke-keys', async () => {
    const { run, keyward } = world()
    const acme = JSON.parse(
      (await run('identities', 'create', '--project', 'proj_1', '--external-id', 'customer_acme', '--json'))
        .stdout,
    )
    const byId = JSON.parse(
      (
        await run(
          'keys',
          'create',
          '--project',
          'proj_1',
          '--name',
          'staging',
          '--identity',
          acme.id,
          '--json',
        )
      ).stdout,
    )
    expect(byId.identity_id).toBe(acme.id)
    const byExternal = JSON.parse(
      (await run('keys', 'create', '--project', 'proj_1', '--external-id', 'customer_acme', '--json')).stdout,
    )
    expect(byExternal.identity_id).toBe(acme.id)
    const plain = JSON.parse((await run('keys', 'create', '--project', 'proj_1', '--json')).stdout)
    const joined = await run('keys', 'update', plain.id, '--identity', acme.id)
    expect(joined.stdout).toBe(`Key ${plain.id} joined identity ${acme.id}.\n`)
    const other = JSON.parse(
      (await run('identities', 'create', '--project', 'proj_2', '--external-id', 'customer_acme', '--json'))
        .stdout,
    )
    const refused = await run('keys', 'update', byId.id, '--identity', other.id)
    expect([refused.code, refused.stderr]).toEqual([
      EXIT.usage,
      'keyward: --identity: project proj_1 has no such identity.\n',
    ])

    const keys = await run('identities', 'keys', acme.id)
    expect(keys.stdout).toContain(`3 keys of identity ${acme.id} (customer_acme), 3 active.`)
    expect(keys.stdout).not.toContain(byId.key)
    const left = await run('keys', 'update', plain.id, '--leave-identity', '--json')
    expect(JSON.parse(left.stdout).identity_id).toBeNull()

    const kept = await run('identities', 'delete', acme.id)
    expect(kept.code).toBe(EXIT.failed)
    expect(kept.stderr).toContain('delete it with --revoke-keys')
    expect((await keyward().findKey(byId.id))?.active).toBe(true)
    const deleted = await run('identities', 'delete', acme.id, '--revoke-keys')
    expect(deleted.stdout).toBe(`Deleted identity ${acme.id} (customer_acme), revoked 2 keys.\n`)
    expect((await keyward().findKey(byId.id))?.active).toBe(false)
    expect(await keyward().findIdentity(acme.id)).toBeNull()
    expect((await run('identities', 'get', acme.id)).code).toBe(EXIT.failed)
  })

  it("shows an identity's usage: the counts of its keys", async () => {
    const { run, keyward } = world()
    const acme = await keyward().createIdentity('proj_1', { externalId: 'customer_acme' })
    const inside = await keyward().issueProjectKey('proj_1', { identityId: acme.id })
    const outside = await keyward().issueProjectKey('proj_1')
    const service = keyward()
    for (const key of [inside.key, inside.key, outside.key]) {
      await service.authenticate({ projectKey: key }, { scope: 'project', projectId: 'proj_1' })
    }
    await service.flushUsage()
    const usage = await run('usage', '--identity', acme.id, '--json')
    expect(JSON.parse(usage.stdout).usage).toEqual([
      expect.objectContaining({ key_id: inside.record.id, outcome: 'accepted', count: 2 }),
    ])
    const text = await run('usage', '--identity', acme.id)
    expect(text.stdout).toMatch(/2 verifications of the keys of identity [0-9a-f-]{36} from /)
    expect((await run('usage', '--identity', acme.id, '--project', 'proj_1')).code).toBe(EXIT.usage)
    expect((await run('usage', '--identity', crypto.randomUUID())).code).toBe(EXIT.failed)
  })
})
