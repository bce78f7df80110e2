// A key listing's `?status=`: each status, a leaked key among the revoked, and a status refused.
import { describe, expect, it } from 'vitest'
import { hashKey } from '../hash/digest.js'
import { world } from '../test/key-routes-world.js'

const KEYS = '/api/v1/projects/p1/api-keys'

describe("a key listing's ?status=", () => {
  it('keeps the keys of that status: leaked ones are those a leak report revoked, and are revoked too', async () => {
    const { call, d1, keyward } = await world()
    const kept = await keyward.issueProjectKey('p1', { name: 'kept' })
    const revoked = await keyward.issueProjectKey('p1', { name: 'revoked' })
    const leaked = await keyward.issueProjectKey('p1', { name: 'leaked' })
    await keyward.deactivateKey(revoked.record.id)
    await keyward.revokeLeakedKeys([{ hash: await hashKey(leaked.key) }])
    const names = async (status: string) => {
      const answer = await call('GET', `${KEYS}?status=${status}`, { key: d1 })
      expect(answer.status, status).toBe(200)
      return answer.json.keys.map((key: { name: string }) => key.name).sort()
    }
    expect(await names('leaked')).toEqual(['leaked'])
    expect(await names('revoked')).toEqual(['leaked', 'revoked'])
    expect(await names('active')).toEqual(['kept'])
    const searched = await call('GET', `${KEYS}?status=leaked&q=kept`, { key: d1 })
    expect(searched.json.keys).toEqual([])
    expect(kept.record.active).toBe(true)
  })

  it('refuses a status it does not know with 422 value_error at ["query", "status"]', async () => {
    const { call, d1 } = await world()
    const answer = await call('GET', `${KEYS}?status=stolen`, { key: d1 })
    expect([answer.status, answer.json.detail]).toEqual([
      422,
      [
        {
          loc: ['query', 'status'],
          msg: "Input should be 'active', 'expired', 'revoked' or 'leaked'.",
          type: 'value_error',
        },
      ],
    ])
  })
})
