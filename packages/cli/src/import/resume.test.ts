// An import killed with SIGKILL halfway, then run again with its cursor file, writes every record
// exactly once: one key and one audit row each, on a real PostgreSQL.
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'

const PG_URL = process.env.KEYWARD_PG_URL
const RECORDS = 20_000
const BATCH = 250
// The built binary (the root `pnpm test` builds it first).
const bin = fileURLToPath(new URL('../../dist/bin.js', import.meta.url))
const schema = `keyward_import_kill_${Date.now().toString(36)}_${process.pid}`
const dir = mkdtempSync(join(tmpdir(), 'keyward-resume-'))

const hashOf = (i: number) =>
  createHash('sha256')
    .update(`legacy_${i}_${'x'.repeat(20)}`)
    .digest('hex')

describe.skipIf(!PG_URL)('keyward import killed with SIGKILL halfway (set KEYWARD_PG_URL to run)', () => {
  afterAll(async () => {
    const client = new pg.Client({ connectionString: PG_URL })
    await client.connect()
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    await client.end()
  })

  it('resumes from its cursor file and writes every record exactly once', async () => {
    expect(existsSync(bin)).toBe(true)
    const file = join(dir, 'keys.ndjson')
    writeFileSync(
      file,
      Array.from({ length: RECORDS }, (_, i) =>
        JSON.stringify({ hash: hashOf(i), project_id: `proj_${i % 10}`, prefix: 'legacy_', name: `k${i}` }),
      ).join('\n'),
    )
    const cursorFile = join(dir, 'cursor')
    const args = [bin, 'import', '--file', file, '--batch', String(BATCH), '--cursor-file', cursorFile]
    const env = { ...process.env, KEYWARD_PG_URL: PG_URL, KEYWARD_PG_SCHEMA: schema }
    const cursor = () => (existsSync(cursorFile) ? Number(readFileSync(cursorFile, 'utf8')) : 0)

    // Killed once a quarter of the records is done, while it writes the rest.
    const child = spawn(process.execPath, args, { env, stdio: 'ignore' })
    const exited = new Promise((resolve) => child.once('exit', resolve))
    const deadline = Date.now() + 120_000
    while (cursor() < RECORDS / 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    child.kill('SIGKILL')
    await exited
    const killedAt = cursor()
    expect(killedAt).toBeGreaterThanOrEqual(RECORDS / 4)
    expect(killedAt).toBeLessThan(RECORDS)

    const resumed = spawnSync(process.execPath, args, { env, encoding: 'utf8', timeout: 300_000 })
    expect(resumed.status, resumed.stderr).toBe(0)
    expect(cursor()).toBe(RECORDS)
    // The records before the cursor were passed over; those of the batch the kill cut short, if
    // it had committed, are present: none is written twice.
    const [, written, present] = /imported (\d+), (\d+) already present, 0 bad/.exec(resumed.stdout) ?? []
    expect(Number(written) + Number(present)).toBe(RECORDS - killedAt)
    expect(Number(present)).toBeLessThanOrEqual(BATCH)

    const client = new pg.Client({ connectionString: PG_URL })
    await client.connect()
    try {
      const keys = await client.query(
        `SELECT count(*)::int AS n, count(DISTINCT hash)::int AS hashes FROM ${schema}.api_keys`,
      )
      expect(keys.rows[0]).toEqual({ n: RECORDS, hashes: RECORDS })
      const audit = await client.query(
        `SELECT count(*)::int AS n, count(DISTINCT target_id)::int AS keys FROM ${schema}.audit_log WHERE action = 'key.issued'`,
      )
      expect(audit.rows[0]).toEqual({ n: RECORDS, keys: RECORDS })
    } finally {
      await client.end()
    }
  }, 600_000)
})
