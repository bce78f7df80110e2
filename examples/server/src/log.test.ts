import type { KeywardEvent } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import { formatEvent, formatReplicaEvent } from './log.js'

describe('formatEvent', () => {
  it('writes one line per event, single failures summed up, with key prefixes only', () => {
    const events: Array<[KeywardEvent, string | undefined]> = [
      [
        { type: 'key.issued', keyId: 'k1', keyPrefix: 'ak_Ab3xY', ownerType: 'project', ownerId: 'p1' },
        'key.issued ak_Ab3xY... project p1 (key id k1)',
      ],
      [
        {
          type: 'key.deactivated',
          keyId: 'k1',
          keyPrefix: 'ak_Ab3xY',
          ownerType: 'developer',
          ownerId: 'd1',
        },
        'key.deactivated ak_Ab3xY... developer d1 (key id k1)',
      ],
      [
        {
          type: 'key.leaked',
          keyId: 'k1',
          keyPrefix: 'ak_Ab3xY',
          ownerType: 'project',
          ownerId: 'p1',
          url: 'https://example.com/a.txt',
          source: 'commit',
          revoked: true,
        },
        'key.leaked ak_Ab3xY... project p1 (key id k1) found at "https://example.com/a.txt" (commit): revoked',
      ],
      [
        { type: 'key.limit_exceeded', ownerType: 'developer', ownerId: 'd1', activeLimit: 10 },
        'key.limit_exceeded developer d1 has 10 active keys',
      ],
      [
        {
          type: 'auth.failed',
          reason: 'inactive_key',
          header: 'x-api-key',
          errorType: 'key_invalid',
          keyId: 'k1',
          keyPrefix: 'ak_Ab3xY',
        },
        undefined,
      ],
      [
        {
          type: 'auth.failures',
          address: '203.0.113.7',
          errorType: 'key_invalid',
          count: 1250,
          keyPrefixes: ['ak_Ab3xY', 'ak_Zz9-_'],
          intervalSeconds: 60,
        },
        'auth.failures 1250 key_invalid from 203.0.113.7 in 60s keys ak_Ab3xY... ak_Zz9-_...',
      ],
      [
        {
          type: 'auth.failures',
          address: '1.2.3.4\nforged line',
          errorType: 'rate_limited',
          count: 3,
          keyPrefixes: [],
          intervalSeconds: 60,
        },
        'auth.failures 3 rate_limited from "1.2.3.4\\nforged line" in 60s',
      ],
      [
        {
          type: 'usage.stranded',
          count: 14,
          keys: [
            { keyId: 'k1', keyPrefix: 'ak_Ab3xY', count: 9 },
            { keyId: 'k2', keyPrefix: 'ak_Zz9-_', count: 3 },
          ],
        },
        'usage.stranded 14 usage counts were not written at the stop (the database did not answer): ak_Ab3xY... 9, ak_Zz9-_... 3',
      ],
      [
        {
          type: 'usage.stranded',
          count: 12,
          keys: Array.from({ length: 12 }, (_, i) => ({
            keyId: `k${i}`,
            keyPrefix: `ak_000${i}`.slice(0, 8),
            count: 1,
          })),
        },
        `usage.stranded 12 usage counts were not written at the stop (the database did not answer): ${Array.from(
          { length: 10 },
          (_, i) => `${`ak_000${i}`.slice(0, 8)}... 1`,
        ).join(', ')}, and 2 more keys`,
      ],
      [
        { type: 'identity.credits_stranded', identityId: 'i1', credits: 241 },
        'identity.credits_stranded identity i1: 241 credits leased by this process from its pool were not given back at the stop (the database did not answer); they stay spent',
      ],
      [
        { type: 'store.error', operation: 'findKeyByHash', error: new Error('connect ECONNREFUSED') },
        'store.error during findKeyByHash: connect ECONNREFUSED',
      ],
    ]
    for (const [event, line] of events) expect(formatEvent(event)).toBe(line)
  })
})

describe('formatReplicaEvent', () => {
  it('names the replica by host, port and database, and says where lookups go', () => {
    const replica = 'replica-1:5432/keys'
    expect(
      formatReplicaEvent({ type: 'replica.down', replica, error: new Error('connection refused') }),
    ).toBe('replica.down replica-1:5432/keys: connection refused; its lookups go to the primary')
    expect(formatReplicaEvent({ type: 'replica.lagging', replica, lagMs: 12000 })).toBe(
      'replica.lagging replica-1:5432/keys (12000 ms behind the primary)',
    )
    expect(formatReplicaEvent({ type: 'primary.down', error: new Error('timeout') })).toBe(
      'primary.down: timeout',
    )
    expect(formatReplicaEvent({ type: 'primary.up' })).toBe('primary.up')
    expect(formatReplicaEvent({ type: 'feed.stale', boundMs: 250 })).toBe(
      'feed.stale: no fence of the change feed came back within 250 ms; verifications skip the cache and the replicas',
    )
    expect(formatReplicaEvent({ type: 'feed.fresh' })).toBe('feed.fresh: the change feed is fresh again')
  })
})
