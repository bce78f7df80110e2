// The import rate of `keyward import --from better-auth`: 100,000 keys in better-auth's api-key
// table (its columns, its SHA-256 base64url `key`; one user in a hundred keys, credits with a daily
// refill on a third, an expiry on a fifth, one in ten disabled), read from PostgreSQL and written
// into Keyward's store on the same server, by the built CLI in a process of its own, as an operator
// runs it. Needs KEYWARD_PG_URL.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { table } from './harness.mjs'

const ROWS = Number(process.env.IMPORT_ROWS ?? 100_000)
const url = process.env.KEYWARD_PG_URL
if (!url) {
  console.log('Skipped: set KEYWARD_PG_URL to measure the import rate.')
  process.exit(0)
}
const bin = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url))
const source = `kw_bench_better_auth_${process.pid}`
const target = `kw_bench_import_${process.pid}`
const pool = new pg.Pool({ connectionString: url, max: 2 })

// better-auth's api-key table (plugin schema of better-auth 1.7), filled in one statement.
const KEY = `translate(rtrim(encode(sha256(convert_to('ba_' || lpad(i::text, 64, 'k'), 'UTF8')), 'base64'), '='), '+/', '-_')`
await pool.query(`CREATE SCHEMA ${source}`)
await pool.query(`CREATE TABLE ${source}.apikey (
  id text PRIMARY KEY, "configId" text NOT NULL DEFAULT 'default', name text, start text, "referenceId" text NOT NULL,
  prefix text, key text NOT NULL, "refillInterval" integer, "refillAmount" integer, "lastRefillAt" timestamptz,
  enabled boolean DEFAULT true, "rateLimitEnabled" boolean DEFAULT true, "rateLimitTimeWindow" integer,
  "rateLimitMax" integer, "requestCount" integer DEFAULT 0, remaining integer, "lastRequest" timestamptz,
  "expiresAt" timestamptz, "createdAt" timestamptz NOT NULL, "updatedAt" timestamptz NOT NULL,
  permissions text, metadata text)`)
await pool.query(
  `INSERT INTO ${source}.apikey (id, name, start, "referenceId", prefix, key, "refillInterval", "refillAmount",
     enabled, remaining, "expiresAt", "createdAt", "updatedAt", permissions, metadata)
   SELECT 'id' || i, 'key ' || i, left('ba_' || lpad(i::text, 64, 'k'), 6), 'user_' || (i % 1000), 'ba_', ${KEY},
     CASE WHEN i % 3 = 0 THEN 86400000 END, CASE WHEN i % 3 = 0 THEN 100 END, i % 10 <> 1,
     CASE WHEN i % 3 = 0 THEN i % 100 END, CASE WHEN i % 5 = 0 THEN now() + interval '30 days' END,
     now() - i * interval '1 millisecond', now(), '{"files":["read"]}', '{"plan":"pro"}'
   FROM generate_series(1, $1) AS i`,
  [ROWS],
)

const rows = []
try {
  for (const batch of (process.env.IMPORT_BATCHES ?? '500').split(',').map(Number)) {
    const schema = `${target}_${batch}`
    const started = performance.now()
    const run = spawnSync(
      process.execPath,
      [
        bin,
        'import',
        '--from',
        'better-auth',
        '--source-url',
        url,
        '--source-schema',
        source,
        '--project',
        'proj_bench',
        '--batch',
        String(batch),
      ],
      { env: { ...process.env, KEYWARD_PG_SCHEMA: schema }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    )
    const seconds = (performance.now() - started) / 1000
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    if (run.status !== 0 || !run.stdout.includes(`imported ${ROWS},`)) {
      throw new Error(
        `the import failed (${run.status}): ${run.stdout.slice(-300)} ${run.stderr.slice(-300)}`,
      )
    }
    rows.push([String(ROWS), String(batch), seconds.toFixed(1), (ROWS / seconds).toFixed(0)])
  }
} finally {
  await pool.query(`DROP SCHEMA IF EXISTS ${source} CASCADE`)
  await pool.end()
}

table(['rows', 'batch', 'seconds (process start to exit)', 'keys/s'], rows)
console.log(
  `\nNode ${process.version}, ${process.platform}/${process.arch}; one run each, the Keyward schema migrated by the run, 1,000 identities made on the way, one audit row per key.`,
)
