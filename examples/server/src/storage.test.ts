import { expect, it } from 'vitest'
import { APP_SCHEMA } from './db/schema.js'
import { tokenSecret } from './storage.js'
import { describeBackends } from './test/databases.js'
import { openTestStore } from './test/harness.js'

describeBackends('the access tokens signing secret (%s)', (backend) => {
  it('comes from the environment or lives with the process, and is never kept in the database', async () => {
    const { store, drop } = await openTestStore(backend)
    try {
      // What an earlier version kept in plain text next to the data.
      await store.query(`INSERT INTO ${APP_SCHEMA}.settings (name, value) VALUES ($1, $2)`, [
        'access_token_secret',
        'stored-in-plain-text-next-to-the-data',
      ])
      const configured = 'c'.repeat(32)
      expect(await tokenSecret(store, configured)).toEqual({ secret: configured, ephemeral: false })
      const first = await tokenSecret(store, undefined)
      const second = await tokenSecret(store, undefined)
      expect(first.ephemeral).toBe(true)
      expect(first.secret).not.toBe(second.secret)
      const rows = await store.query<{ value: string }>(`SELECT value FROM ${APP_SCHEMA}.settings`)
      expect(rows).toEqual([])
    } finally {
      await drop()
    }
  })
})
