// Limiter backends of the tests that share counters between services, as between processes.
import type { LimiterFactory } from '@keyward/core'
import pg from 'pg'
import { RateLimiterPostgres } from 'rate-limiter-flexible'

/**
 * Counters in a table of their own in the PostgreSQL server at `url` (schema `schema`, created
 * here), counted by rate-limiter-flexible's `RateLimiterPostgres`; `close` drops the schema.
 */
export async function postgresLimiter(
  url: string,
  schema: string,
): Promise<{ limiter: LimiterFactory; close: () => Promise<void> }> {
  const pool = new pg.Pool({ connectionString: url, max: 4 })
  await pool.query(`CREATE SCHEMA ${schema}`)
  await pool.query(
    `CREATE TABLE ${schema}.rate_limits (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`,
  )
  const limiter: LimiterFactory = (settings) =>
    new RateLimiterPostgres({
      storeClient: pool,
      schemaName: schema,
      tableName: 'rate_limits',
      tableCreated: true,
      clearExpiredByTimeout: false,
      ...settings,
    })
  return {
    limiter,
    close: async () => {
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      await pool.end()
    },
  }
}
