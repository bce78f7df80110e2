import { createKeyward, MemoryKeyStore } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import { EXIT } from '../exit.js'
import { harness, STORE } from '../test/harness.js'

const DECLARED = { KEYWARD_PERMISSIONS: 'reports:read, reports:write' }

describe('keyward keys create', () => {
  it('creates an API key with an IP allowlist, permissions and metadata, and prints it once', async () => {
    const cli = harness({ env: DECLARED })
    const result = await cli.run(
      'keys',
      'create',
      '--project',
      'proj_1',
      '--name',
      'reporting',
      '--ip',
      '203.0.113.0/24',
      '--ip',
      '2001:db8::/32',
      '--permission',
      'reports:read',
      '--metadata',
      '{"plan":"pro"}',
      '--json',
      ...STORE,
    )
    expect(result.code, result.stderr).toBe(EXIT.ok)
    const created = JSON.parse(result.stdout)
    expect(created).toMatchObject({
      project_id: 'proj_1',
      name: 'reporting',
      ip_allowlist: ['203.0.113.0/24', '2001:db8::/32'],
      permissions: ['reports:read'],
      metadata: { plan: 'pro' },
      key: expect.stringMatching(/^ak_/),
    })
    const auth = await cli
      .keyward()
      .authenticate(
        { projectKey: created.key, address: '203.0.113.9' },
        { scope: 'project', projectId: 'proj_1' },
      )
    expect(auth.permissions).toEqual(['reports:read'])
    await expect(
      cli
        .keyward()
        .authenticate(
          { projectKey: created.key, address: '198.51.100.1' },
          { scope: 'project', projectId: 'proj_1' },
        ),
    ).rejects.toMatchObject({ type: 'ip_not_allowed' })
    const listed = await cli.run('keys', 'list', '--project', 'proj_1', ...STORE)
    expect(listed.stdout).toContain('ip 2, 1 permission, metadata')
  })

  it.each([
    [
      ['--ip', '10.0.0.0/8', '--ip', '10.0.0.1/8'],
      '--ip (value 2): Entry 1 "10.0.0.1/8" is not an IP address or CIDR range',
    ],
    [
      ['--permission', 'admin:all'],
      '--permission (value 1): The permission admin:all is not one this server declares.',
    ],
    [['--metadata', '[1]'], '--metadata: Input should be a JSON object.'],
    [['--metadata', '{oops'], '--metadata must be a JSON object'],
    [['--ratelimit', 'requests=100/60'], '--ratelimit must be NAME:LIMIT/DURATION'],
    [['--ratelimit', 'requests:100/0s'], '--ratelimit (value 1):'],
    [['--ratelimit', 'requests:0/60s'], '--ratelimit (value 1): Input should be at least 1.'],
    [
      ['--ratelimit', 'a:1/1s', '--ratelimit', 'a:2/1s'],
      '--ratelimit (value 2): The rate limit `a` is given twice.',
    ],
  ])('refuses %j with a usage error that names the option, creating nothing', async (options, message) => {
    const cli = harness({ env: DECLARED })
    const result = await cli.run('keys', 'create', '--project', 'proj_1', ...options, ...STORE)
    expect(result.code).toBe(EXIT.usage)
    expect(result.stderr).toContain(message)
    expect(cli.records.size).toBe(0)
  })

  it('refuses permissions when the host declares none in KEYWARD_PERMISSIONS', async () => {
    const cli = harness()
    const result = await cli.run(
      'keys',
      'create',
      '--project',
      'proj_1',
      '--permission',
      'reports:read',
      ...STORE,
    )
    expect(result.code).toBe(EXIT.usage)
    expect(result.stderr).toContain('declares no permissions')
  })
})

describe('keyward keys update', () => {
  it('replaces what it names, clears with --any-ip, --all-permissions and --clear-metadata', async () => {
    const cli = harness({ env: DECLARED })
    const { record } = await cli
      .keyward()
      .issueProjectKey('proj_1', { ipAllowlist: ['10.0.0.0/8'], metadata: { a: 1 } })
    const narrowed = await cli.run(
      'keys',
      'update',
      record.id,
      '--permission',
      'reports:write',
      '--json',
      ...STORE,
    )
    expect(narrowed.code, narrowed.stderr).toBe(EXIT.ok)
    expect(JSON.parse(narrowed.stdout)).toMatchObject({
      permissions: ['reports:write'],
      ip_allowlist: ['10.0.0.0/8'],
      metadata: { a: 1 },
    })
    const cleared = await cli.run(
      'keys',
      'update',
      record.id,
      '--any-ip',
      '--clear-metadata',
      '--all-permissions',
      ...STORE,
    )
    expect(cleared).toEqual({
      code: EXIT.ok,
      stdout: `Updated the policies of key ${record.id}.\n`,
      stderr: '',
    })
    expect(await cli.keyward().findKey(record.id)).toMatchObject({
      ipAllowlist: null,
      permissions: null,
      metadata: null,
    })
  })

  it('needs something to change, and an API key', async () => {
    const cli = harness({ env: DECLARED })
    const { record } = await cli.keyward().issueDeveloperKey('dev_1')
    expect((await cli.run('keys', 'update', record.id, ...STORE)).code).toBe(EXIT.usage)
    const developer = await cli.run('keys', 'update', record.id, '--any-ip', ...STORE)
    expect([developer.code, developer.stderr]).toEqual([
      EXIT.failed,
      expect.stringContaining('No API key with id'),
    ])
    const both = await cli.run('keys', 'update', record.id, '--any-ip', '--ip', '::1', ...STORE)
    expect(both.code).toBe(EXIT.usage)
  })
})

describe('keyward keys create and update with stored rate limits', () => {
  it('gives a key named limits (NAME:LIMIT/DURATION), replaces them, and clears them', async () => {
    const cli = harness()
    const limits = ['--ratelimit', 'requests:100/1m', '--ratelimit', 'exports.daily:5/1d']
    const created = await cli.run('keys', 'create', '--project', 'proj_1', ...limits, '--json', ...STORE)
    expect(created.code, created.stderr).toBe(EXIT.ok)
    const { id, ratelimits } = JSON.parse(created.stdout)
    expect(ratelimits).toEqual([
      { name: 'requests', limit: 100, duration: 60_000 },
      { name: 'exports.daily', limit: 5, duration: 86_400_000 },
    ])
    const replaced = await cli.run('keys', 'update', id, '--ratelimit', 'requests:10/1s', '--json', ...STORE)
    expect(JSON.parse(replaced.stdout).ratelimits).toEqual([{ name: 'requests', limit: 10, duration: 1000 }])
    expect((await cli.run('keys', 'update', id, '--clear-ratelimits', ...STORE)).code).toBe(EXIT.ok)
    expect(await cli.keyward().findKey(id)).not.toHaveProperty('ratelimits')
  })
})

describe('keyward keys roll of an API key with permissions', () => {
  it('rolls it under the declared permissions (KEYWARD_PERMISSIONS), keeping them', async () => {
    const cli = harness({ env: DECLARED })
    const keyward = createKeyward({
      store: new MemoryKeyStore({ records: cli.records, auditLog: cli.auditLog }),
      permissions: ['reports:read', 'reports:write'],
    })
    const { record } = await keyward.issueProjectKey('proj_1', { permissions: ['reports:read'] })
    const rolled = await cli.run('keys', 'roll', record.id, '--grace-seconds', '0', '--json', ...STORE)
    expect(rolled.code, rolled.stderr).toBe(EXIT.ok)
    const next = await cli.keyward().findKey(JSON.parse(rolled.stdout).id)
    expect(next?.permissions).toEqual(['reports:read'])
  })

  it('refuses it when the host no longer declares a permission it carries (exit 1, permission_unknown)', async () => {
    const cli = harness({ env: { KEYWARD_PERMISSIONS: 'reports:write' } })
    const keyward = createKeyward({
      store: new MemoryKeyStore({ records: cli.records, auditLog: cli.auditLog }),
      permissions: ['reports:read'],
    })
    const { record } = await keyward.issueProjectKey('proj_1', { permissions: ['reports:read'] })
    const rolled = await cli.run('keys', 'roll', record.id, '--json', ...STORE)
    expect([rolled.code, JSON.parse(rolled.stderr).detail[0].type]).toEqual([
      EXIT.failed,
      'permission_unknown',
    ])
    expect(cli.records.size).toBe(1)
  })
})

describe('the maximum lifetime of API keys (KEYWARD_MAX_API_KEY_LIFETIME_DAYS)', () => {
  const MAX = { KEYWARD_MAX_API_KEY_LIFETIME_DAYS: '30' }
  const DAY_MS = 86_400_000

  it('keys create: a key without --in-days gets the maximum; one beyond it is a usage error naming the variable', async () => {
    const cli = harness({ env: MAX })
    const created = await cli.run('keys', 'create', '--project', 'proj_1', '--json', ...STORE)
    expect(created.code, created.stderr).toBe(EXIT.ok)
    const { created_at, expires_at } = JSON.parse(created.stdout)
    expect(Date.parse(expires_at) - Date.parse(created_at)).toBe(30 * DAY_MS)
    const within = await cli.run('keys', 'create', '--project', 'proj_1', '--in-days', '30', ...STORE)
    expect(within.code, within.stderr).toBe(EXIT.ok)

    const beyond = await cli.run('keys', 'create', '--project', 'proj_1', '--in-days', '31', ...STORE)
    expect(beyond.code).toBe(EXIT.usage)
    expect(beyond.stderr).toBe(
      'keyward: --in-days: API keys live at most 30 days here: give an earlier expiry. (KEYWARD_MAX_API_KEY_LIFETIME_DAYS)\n',
    )
    expect(cli.records.size).toBe(2)
  })

  it('keys expire: refuses an expiry beyond the maximum, or none, changing nothing', async () => {
    const cli = harness({ env: MAX })
    const { record } = await cli.keyward().issueProjectKey('proj_1', { expiresInDays: 10 })
    for (const option of [['--in-days', '31'], ['--never']]) {
      const refused = await cli.run('keys', 'expire', record.id, ...option, '--json', ...STORE)
      expect(refused.code).toBe(EXIT.usage)
      expect(JSON.parse(refused.stderr).detail[0].msg).toContain('(KEYWARD_MAX_API_KEY_LIFETIME_DAYS)')
    }
    expect((await cli.keyward().findKey(record.id))?.expiresAt).toEqual(record.expiresAt)
    const within = await cli.run('keys', 'expire', record.id, '--in-days', '20', ...STORE)
    expect(within.code, within.stderr).toBe(EXIT.ok)
  })

  it('keys roll: refuses a key that lives longer than the maximum (exit 1, lifetime_exceeded); a key without an expiry rolls to one of the maximum', async () => {
    const cli = harness({ env: MAX })
    const long = await cli.keyward().issueProjectKey('proj_1', { expiresInDays: 60 })
    const refused = await cli.run('keys', 'roll', long.record.id, '--json', ...STORE)
    expect(JSON.parse(refused.stderr).detail[0]).toMatchObject({
      type: 'lifetime_exceeded',
      msg: expect.stringContaining('(KEYWARD_MAX_API_KEY_LIFETIME_DAYS)'),
    })
    expect(refused.code).toBe(EXIT.failed)
    expect((await cli.keyward().findKey(long.record.id))?.active).toBe(true)

    const forever = await cli.keyward().issueProjectKey('proj_1')
    const rolled = await cli.run('keys', 'roll', forever.record.id, '--json', ...STORE)
    expect(rolled.code, rolled.stderr).toBe(EXIT.ok)
    const next = await cli.keyward().findKey(JSON.parse(rolled.stdout).id)
    expect(next!.expiresAt!.getTime() - next!.createdAt.getTime()).toBe(30 * DAY_MS)
  })

  it.each(['0', '3651', '30d', '-1'])('a value of %j is a usage error naming the variable', async (value) => {
    const cli = harness({ env: { KEYWARD_MAX_API_KEY_LIFETIME_DAYS: value } })
    const result = await cli.run('keys', 'create', '--project', 'proj_1', ...STORE)
    expect(result.code).toBe(EXIT.usage)
    expect(result.stderr).toContain(
      'KEYWARD_MAX_API_KEY_LIFETIME_DAYS must be a whole number of days, 1 to 3650',
    )
    expect(cli.records.size).toBe(0)
  })
})
