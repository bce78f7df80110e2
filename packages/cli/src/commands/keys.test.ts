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
