import { hashKey } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import { EXIT } from '../exit.js'
import { harness, STORE } from '../test/harness.js'

describe('keyward keys activate', () => {
  it('re-activates a revoked key, which then authenticates again', async () => {
    const cli = harness()
    const { key, record } = await cli.keyward().issueProjectKey('proj_1')
    await cli.run('keys', 'revoke', record.id, ...STORE)
    const result = await cli.run('keys', 'activate', record.id, ...STORE)
    expect(result).toEqual({
      code: EXIT.ok,
      stdout: `Activated key ${record.id} (${record.keyPrefix}..., project proj_1).\n`,
      stderr: '',
    })
    const auth = await cli
      .keyward()
      .authenticate({ projectKey: key }, { scope: 'project', projectId: 'proj_1' })
    expect(auth.projectKey.id).toBe(record.id)
  })

  it('succeeds on a key that is already active, and says so; --json prints the listing', async () => {
    const cli = harness()
    const { record } = await cli.keyward().issueDeveloperKey('dev_1')
    const text = await cli.run('keys', 'activate', record.id, ...STORE)
    expect(text.stdout).toBe(
      `Key ${record.id} (${record.keyPrefix}..., developer dev_1) was already active.\n`,
    )
    const json = await cli.run('keys', 'activate', record.id, '--json', ...STORE)
    expect(JSON.parse(json.stdout)).toMatchObject({ id: record.id, active: true, developer_id: 'dev_1' })
  })

  it('is refused at the limit of 10 active developer keys (exit 1, limit_exceeded)', async () => {
    const cli = harness()
    const keyward = cli.keyward()
    const { record } = await keyward.issueDeveloperKey('dev_1')
    await keyward.deactivateKey(record.id)
    for (let i = 0; i < 10; i++) await keyward.issueDeveloperKey('dev_1')
    const result = await cli.run('keys', 'activate', record.id, '--json', ...STORE)
    expect([result.code, result.stdout]).toEqual([EXIT.failed, ''])
    expect(JSON.parse(result.stderr).detail[0].type).toBe('limit_exceeded')
    expect(cli.records.get(record.id)!.active).toBe(false)
  })

  it('exits 1 for an unknown key id', async () => {
    const result = await harness().run('keys', 'activate', 'no-such-id', ...STORE)
    expect([result.code, result.stderr]).toEqual([EXIT.failed, 'keyward: No key with id no-such-id.\n'])
  })
})

describe('keyward keys expire', () => {
  it('sets an expiry --at a time or --in-days, clears it with --never; the key expires on time', async () => {
    const cli = harness()
    const { record } = await cli.keyward().issueProjectKey('proj_1')
    const at = await cli.run('keys', 'expire', record.id, '--at', '2099-01-31T00:00:00+01:00', ...STORE)
    expect(at).toEqual({
      code: EXIT.ok,
      stdout: `Key ${record.id} (${record.keyPrefix}..., project proj_1) expires 2099-01-30T23:00:00Z.\n`,
      stderr: '',
    })
    const days = await cli.run('keys', 'expire', record.id, '--in-days', '30', '--json', ...STORE)
    const expiresAt = JSON.parse(days.stdout).expires_at
    expect(new Date(expiresAt).getTime() - Date.now()).toBeGreaterThan(29 * 86_400_000)
    expect(cli.records.get(record.id)!.expiresAt).toEqual(new Date(expiresAt))
    const never = await cli.run('keys', 'expire', record.id, '--never', ...STORE)
    expect(never.stdout).toBe(`Key ${record.id} (${record.keyPrefix}..., project proj_1) never expires.\n`)
    expect(cli.records.get(record.id)!.expiresAt).toBeNull()
  })

  it.each([
    [[], 'keyward: Give exactly one of --at TIME, --in-days N or --never.\n'],
    [['--never', '--in-days', '3'], 'keyward: Give exactly one of --at TIME, --in-days N or --never.\n'],
    [['--in-days', 'ten'], 'keyward: --in-days must be a whole number of days, 1 to 3650.\n'],
    [['--in-days', '0'], 'keyward: Input should be at least 1.\n'],
    [
      ['--at', 'tomorrow'],
      expect.stringMatching(/^keyward: --at: Input should be an ISO 8601 date and time/),
    ],
    [['--at', '2020-01-01T00:00:00Z'], 'keyward: The expiry should be in the future.\n'],
  ])('refuses %j as a usage error (exit 2), changing nothing', async (options, message) => {
    const cli = harness()
    const { record } = await cli.keyward().issueDeveloperKey('dev_1')
    const result = await cli.run('keys', 'expire', record.id, ...options, ...STORE)
    expect([result.code, result.stderr]).toEqual([EXIT.usage, message])
    expect(cli.records.get(record.id)!.expiresAt).toBeNull()
  })

  it('refuses a rolled key (exit 1, key_rolled) and an unknown id (exit 1)', async () => {
    const cli = harness()
    const keyward = cli.keyward()
    const { record } = await keyward.issueDeveloperKey('dev_1')
    await keyward.rollKey(record.id)
    const rolled = await cli.run('keys', 'expire', record.id, '--never', '--json', ...STORE)
    expect([rolled.code, JSON.parse(rolled.stderr).detail[0].type]).toEqual([EXIT.failed, 'key_rolled'])
    const unknown = await cli.run('keys', 'expire', crypto.randomUUID(), '--never', ...STORE)
    expect(unknown.code).toBe(EXIT.failed)
  })

  it('shows in keys list why a key was revoked', async () => {
    const cli = harness()
    const keyward = cli.keyward()
    const { key, record } = await keyward.issueProjectKey('proj_1')
    await keyward.revokeLeakedKeys([{ hash: await hashKey(key) }])
    const listed = await cli.run('keys', 'list', '--project', 'proj_1', ...STORE)
    expect(listed.stdout.split('\n')[1]).toMatch(new RegExp(`^${record.id} .* no {6}leaked {3}\\d{4}-`))
  })
})
