import { createKeyward, type KeyRecord } from '@keyward/core'
import { migrateSql, SqlKeyStore, SqlOutcomeUnknownError, sqliteDialect } from '@keyward/sql'
import Database from 'better-sqlite3'
import { expect, it } from 'vitest'
import { sqliteDatabase } from './database.js'

it("reports a key's issue whose owner row could not be written as the failure itself, not as an unknown outcome", async () => {
  const raw = new Database(':memory:')
  try {
    const db = sqliteDatabase(raw)
    await migrateSql(db, sqliteDialect)
    const lost = new Error('Connection lost: The server closed the connection.')
    // The owner's row goes first, on its own: its connection is lost there, before the key's write.
    const failing = {
      ...db,
      run: (text: string, params?: readonly unknown[]) =>
        text.includes('api_key_owners') && text.includes('INSERT')
          ? Promise.reject(new SqlOutcomeUnknownError({ cause: lost }))
          : db.run(text, params),
    }
    const keyward = createKeyward({ store: new SqlKeyStore(failing, sqliteDialect) })
    const issued = keyward.issueProjectKey('proj_1').then(
      () => null,
      (error: { cause?: unknown }) => error,
    )
    const error = await issued
    expect(error).not.toBeNull()
    expect(error?.cause ?? error).toBe(lost)
    expect(error?.cause).not.toBeInstanceOf(SqlOutcomeUnknownError)
    const keys = raw.prepare('SELECT COUNT(*) AS n FROM keyward_api_keys').get() as { n: number }
    expect(keys.n).toBe(0)
    expect(
      (await new SqlKeyStore(db, sqliteDialect).listKeysByOwner({
        type: 'project',
        id: 'proj_1',
      })) as KeyRecord[],
    ).toEqual([])
  } finally {
    raw.close()
  }
})
