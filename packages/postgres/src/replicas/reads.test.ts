import { KeyChangeHub } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import { PostgresKeyStore, type PostgresKeyStoreOptions } from '../base.js'
import { FeedFences } from '../fences.js'
import { createPgKeyStore } from '../pg.js'

describe('replica options', () => {
  const driver = { query: async () => [], transaction: async () => undefined as never }
  const replica = { name: 'replica-1:5432/app', driver }

  it('are checked when the store is built, with messages that name the option', () => {
    const build = (options: PostgresKeyStoreOptions) => () => new PostgresKeyStore(driver, options)
    expect(build({ readReplicas: [{ name: 'r' } as never] })).toThrow(
      'PostgresKeyStore: option `readReplicas[0]` must be { name, driver } with a driver that has `query`.',
    )
    expect(build({ readReplicas: [replica], replicaReads: { maxLagMs: 0 } })).toThrow(
      'PostgresKeyStore: option `replicaReads.maxLagMs` must be a positive integer, got 0.',
    )
    expect(build({ readReplicas: [replica], replicaReads: { probeIntervalMs: 1.5 } })).toThrow(
      'PostgresKeyStore: option `replicaReads.probeIntervalMs` must be a positive integer, got 1.5.',
    )
    expect(build({ readReplicas: [replica], replicaReads: { whenPrimaryDown: 'open' as never } })).toThrow(
      "PostgresKeyStore: option `replicaReads.whenPrimaryDown` must be 'replica' or 'refuse', got open.",
    )
  })

  it('strict revocation, on by default with replicas, needs a change feed with fences of the same bound', () => {
    const build = (options: PostgresKeyStoreOptions) => () => new PostgresKeyStore(driver, options)
    const plainFeed = new KeyChangeHub()
    expect(build({ readReplicas: [replica], changes: plainFeed })).toThrow(
      'PostgresKeyStore: strict revocation (option `strictRevocation`, on by default with `readReplicas`) needs ' +
        '`changes` from pgChangeFeed({ ..., freshnessBoundMs: 250 }), or `strictRevocation: false`.',
    )
    expect(build({ strictRevocation: 'yes' as never })).toThrow(
      'PostgresKeyStore: option `strictRevocation` must be true, false or { boundMs }, got yes.',
    )
    expect(build({ strictRevocation: { boundMs: 0 } })).toThrow(
      'PostgresKeyStore: option `strictRevocation.boundMs` must be a positive integer, got 0.',
    )
    const fenced = Object.assign(new KeyChangeHub(), { fences: new FeedFences(250, () => {}) })
    expect(build({ changes: fenced, strictRevocation: { boundMs: 500 } })).toThrow(
      "PostgresKeyStore: option `strictRevocation.boundMs` (500) differs from the change feed's `freshnessBoundMs` (250).",
    )
    expect(build({ readReplicas: [replica], changes: plainFeed, strictRevocation: false })).not.toThrow()
  })

  it('createPgKeyStore refuses replicas that are not URLs or pools, and replicas without the feed', async () => {
    const source = { connectionString: 'postgres://u@127.0.0.1:1/none' }
    await expect(createPgKeyStore(source, { replicas: [42 as never] })).rejects.toThrow(
      'createPgKeyStore: option `replicas` must be an array of connection strings or pg Pools.',
    )
    await expect(
      createPgKeyStore(source, { replicas: ['postgres://u@127.0.0.1:1/none'], changeFeed: false }),
    ).rejects.toThrow(
      'createPgKeyStore: option `replicas` needs the change feed (`changeFeed` must not be false).',
    )
  })
})
