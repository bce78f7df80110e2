import { drizzle } from 'drizzle-orm/node-postgres'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import postgres from 'postgres'
import { describe, expect, it } from 'vitest'
import { withDates } from './client-driver.js'
import { drizzleDriver } from './drizzle.js'
import { kyselyDriver } from './kysely.js'
import { pgTransactionDriver } from './pg.js'
import { postgresJsDriver } from './postgres-js.js'

describe('withDates', () => {
  it('reads timestamptz text into Dates, whatever its offset and precision, and leaves other columns', () => {
    const rows = withDates(
      [
        {
          created_at: '2026-01-02 03:04:05.678+00',
          expires_at: '2026-01-02 08:34:05.123456+05:30',
          last_used_at: '2025-12-31 22:00:00-02',
          position_at: '2026-01-02 03:04:05.678901+00',
          already: new Date(0),
        },
      ],
      [
        { name: 'created_at', type: 1184 },
        { name: 'expires_at', type: 1184 },
        { name: 'last_used_at', type: 1184 },
        { name: 'position_at', type: 25 },
        { name: 'already', type: 1184 },
      ],
    )
    expect(rows[0]).toEqual({
      created_at: new Date('2026-01-02T03:04:05.678Z'),
      expires_at: new Date('2026-01-02T03:04:05.123Z'),
      last_used_at: new Date('2026-01-01T00:00:00.000Z'),
      // A text column stays text: the store's page cursor keeps its microseconds.
      position_at: '2026-01-02 03:04:05.678901+00',
      already: new Date(0),
    })
  })

  it('leaves a value it cannot read as it is (infinity), and rows without column types alone', () => {
    const rows = [{ expires_at: 'infinity' }]
    expect(withDates(rows, [{ name: 'expires_at', type: 1184 }])).toEqual([{ expires_at: 'infinity' }])
    expect(withDates([{ created_at: '2026-01-02 03:04:05+00' }], undefined)).toEqual([
      { created_at: '2026-01-02 03:04:05+00' },
    ])
  })
})

describe('the drivers over an application client', () => {
  it('refuse what is not their client, and a bad option, by name', async () => {
    expect(() => postgresJsDriver({} as never)).toThrow(
      'postgresJsDriver: expected the `sql` of postgres() or a transaction of sql.begin().',
    )
    const sql = postgres('postgres://127.0.0.1:1/none', { max: 1 })
    expect(() => postgresJsDriver(sql, { queryTimeoutMs: 0 })).toThrow(
      'postgresJsDriver: option `queryTimeoutMs` must be a positive integer, got 0.',
    )
    expect(() => postgresJsDriver(sql, { preparedStatements: 'no' as never })).toThrow(
      'postgresJsDriver: option `preparedStatements` must be true or false, got no.',
    )
    expect(() => drizzleDriver({} as never)).toThrow(
      'drizzleDriver: expected a Drizzle PostgreSQL database or transaction.',
    )
    const pool = new pg.Pool({ connectionString: 'postgres://127.0.0.1:1/none' })
    expect(() => drizzleDriver(drizzle(pool), { queryTimeoutMs: -1 })).toThrow(
      'drizzleDriver: option `queryTimeoutMs` must be a positive integer, got -1.',
    )
    expect(() => kyselyDriver({} as never)).toThrow(
      'kyselyDriver: expected a Kysely instance or a transaction of db.transaction().',
    )
    const db = new Kysely({ dialect: new PostgresDialect({ pool }) })
    expect(() => kyselyDriver(db, { queryTimeoutMs: 1.5 })).toThrow(
      'kyselyDriver: option `queryTimeoutMs` must be a positive integer, got 1.5.',
    )
    expect(() => pgTransactionDriver(pool as never)).toThrow(
      'pgTransactionDriver: expected a pg client in a transaction (not a Pool).',
    )
    await sql.end()
    await pool.end()
  })
})
