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
