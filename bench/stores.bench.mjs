// The stores side by side, in one process and one run, at 1 and 16 requests in flight: SQLite (a
// file), MySQL or MariaDB (KEYWARD_MYSQL_URL) and PostgreSQL (KEYWARD_PG_URL), each against
//   - its floor: a raw prepared lookup of the same precomputed hash with the same driver, reading
//     the columns a key record is made of (uncached verification, target >= 0.9x);
//   - the memory store (cached verification, where the store has a change feed: target >= 0.8x);
//   - itself cached (a guard spending credits of a key with a balance, leased in blocks: target >= 0.5x).
// Cases run in rounds of rotating order; the ratios are of the medians of the rounds.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { apiKeyGuard, createKeyward, hashKey, KeyChangeHub, MemoryKeyStore } from '@keyward/core'
import { createMysqlKeyStore } from '@keyward/mysql'
import { createPgKeyStore } from '@keyward/postgres/pg'
import { migrateSql, SqlKeyStore, sqliteDialect } from '@keyward/sql'
import { sqliteDatabase } from '@keyward/sqlite'
import Database from 'better-sqlite3'
import mysql from 'mysql2/promise'
import pg from 'pg'
import { machineLine, median, table, throughput } from './harness.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 300)
const SETTLE_MS = 100
const KEYS = 1000
const PROJECT = 'bench-project'
const IN_FLIGHT = [1, 16]
const PREFIX = `kwb${process.pid}_`
const requirement = { scope: 'project', projectId: PROJECT }
const CREDITS = 1_000_000_000_000
// The floors read the columns a key record is made of, as the stores' lookups do: fewer would
// measure the width of the row.
const KEY_COLUMNS =
  'id, hash, key_prefix, developer_id, project_id, name, active, created_at, expires_at, last_used_at, replaced_by, ip_allowlist, permissions, metadata, remaining, refill_amount, refill_interval, refill_day, refilled_at, ratelimits, identity_id, pepper_id, role_ids, credits_low_at, revoked_reason'

/**
 * A store's cases: uncached verification, its floor, cached verification and credits (where the
 * store has a change feed), from keys issued through the store.
 */
// The hashes of the keys of the last store given to storeCases.
let lastHashes = []
async function storeCases(label, store, floor) {
  const issuer = createKeyward({ store, usage: false })
  const keys = []
  const metered = []
  for (let i = 0; i < KEYS; i++) {
    keys.push((await issuer.issueProjectKey(PROJECT)).key)
    metered.push((await issuer.issueProjectKey(PROJECT, { remaining: CREDITS })).key)
  }
  const hashes = await Promise.all(keys.map(hashKey))
  lastHashes = hashes
  const uncached = createKeyward({ store, usage: false, trackLastUsed: false })
  const cases = new Map([
    [`${label}`, (i) => uncached.authenticate({ projectKey: keys[i % KEYS] }, requirement)],
    [`${label}-floor`, (i) => floor(hashes[i % KEYS])],
  ])
  if (store.changes) {
    const cached = createKeyward({ store, cache: {}, usage: false, trackLastUsed: false })
    const guard = apiKeyGuard(cached)
    const request = (key) => ({
      method: 'GET',
      url: '/',
      params: {},
      header: (n) => (n === 'x-api-key' ? key : undefined),
    })
    const plain = keys.map(request)
    const paying = metered.map(request)
    const guarded = (list) => async (i) => {
      const result = guard.now?.(list[i % KEYS]) ?? (await guard(list[i % KEYS]))
      if (!result.ok) throw new Error(`refused: ${result.response.body}`)
    }
    cases.set(`${label}-cached`, guarded(plain))
    cases.set(`${label}-credits`, guarded(paying))
    closers.push(() => cached.close())
  }
  closers.push(() => uncached.close())
  return cases
}

const closers = []
const all = new Map()
const notes = []
const found = (row) => {
  if (!row) throw new Error('lookup failed')
}

// The memory store, cached: the reference of the cached cases.
{
  const store = new MemoryKeyStore()
  const issuer = createKeyward({ store, usage: false })
  const keys = []
  for (let i = 0; i < KEYS; i++) keys.push((await issuer.issueProjectKey(PROJECT)).key)
  const cached = createKeyward({ store, cache: {}, usage: false, trackLastUsed: false })
  all.set('memory', (i) => cached.authenticate({ projectKey: keys[i % KEYS] }, requirement))
}

// SQLite: a file in a directory of its own, opened as createSqliteKeyStore opens it (WAL, full
// sync) but without its lock against other processes, so that the floor runs a better-sqlite3
// statement prepared once on the store's own connection.
{
  const dir = mkdtempSync(join(tmpdir(), 'keyward-bench-'))
  const raw = new Database(join(dir, 'keys.db'))
  raw.pragma('journal_mode = WAL')
  raw.pragma('synchronous = FULL')
  const db = sqliteDatabase(raw)
  await migrateSql(db, sqliteDialect)
  const store = new SqlKeyStore(db, sqliteDialect, { changes: new KeyChangeHub({ connected: true }) })
  const lookup = raw.prepare(`SELECT ${KEY_COLUMNS} FROM keyward_api_keys WHERE hash = ?`)
  for (const [name, fn] of await storeCases('sqlite', store, async (hash) => found(lookup.get(hash)))) {
    all.set(name, fn)
  }
  // The store reads the key's row as an array (better-sqlite3's `raw` mode, no object per row):
  // the same lookup in that mode, beside, with no target, so that the report shows both floors.
  const arrays = raw.prepare(`SELECT ${KEY_COLUMNS} FROM keyward_api_keys WHERE hash = ?`).raw(true)
  const sqliteHashes = lastHashes
  all.set('sqlite-floor-arrays', async (i) => found(arrays.get(sqliteHashes[i % KEYS])))
  closers.push(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })
}

// MySQL or MariaDB: tables of a prefix of their own, dropped after, and the store's change feed (a
// poll of its change log) for the cache; the floor is mysql2's `execute` (a server-side prepared
// statement, cached per connection) on a pool of the same size and settings (no stack captured
// per call, as the store's own pool).
const mysqlUrl = process.env.KEYWARD_MYSQL_URL
if (mysqlUrl) {
  const store = await createMysqlKeyStore(
    { connectionString: mysqlUrl },
    { tablePrefix: PREFIX, changeFeed: true },
  )
  const pool = mysql.createPool({ uri: mysqlUrl, connectionLimit: 10, trace: false })
  const text = `SELECT ${KEY_COLUMNS} FROM ${PREFIX}api_keys WHERE hash = ?`
  for (const [name, fn] of await storeCases('mysql', store, async (hash) => {
    const [rows] = await pool.execute(text, [hash])
    found(rows[0])
  })) {
    all.set(name, fn)
  }
  if (!store.changes) notes.push('mysql: no change feed, so no cached or credit cases (a cache needs one).')
  closers.push(async () => {
    const [tables] = await pool.query(
      'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE ?',
      [`${PREFIX}%`],
    )
    for (const { name } of tables) await pool.query(`DROP TABLE IF EXISTS \`${name}\``)
    await store.close()
    await pool.end()
  })
} else notes.push('MySQL skipped: set KEYWARD_MYSQL_URL.')

// PostgreSQL, beside them: a schema of its own; the floor a named (prepared) statement of node-postgres.
const pgUrl = process.env.KEYWARD_PG_URL
if (pgUrl) {
  const schema = `kw_bench_stores_${process.pid}`
  const store = await createPgKeyStore(
    { connectionString: pgUrl, poolConfig: { max: 10 } },
    { schema, changeFeed: true },
  )
  const pool = new pg.Pool({ connectionString: pgUrl, max: 10 })
  const text = `SELECT ${KEY_COLUMNS} FROM "${schema}".api_keys WHERE hash = $1`
  for (const [name, fn] of await storeCases('pg', store, async (hash) => {
    const { rows } = await pool.query({ name: 'bench_floor', text, values: [hash] })
    found(rows[0])
  })) {
    all.set(name, fn)
  }
  closers.push(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await store.close()
    await pool.end()
  })
} else notes.push('PostgreSQL skipped: set KEYWARD_PG_URL.')

const results = new Map()
try {
  for (const inFlight of IN_FLIGHT) {
    const names = [...all.keys()]
    // Warm up: every key seen once by every case (a cache then answers the rounds).
    for (const name of names) {
      for (let i = 0; i < KEYS; i += 16)
        await Promise.all(Array.from({ length: 16 }, (_, k) => all.get(name)(i + k)))
      await throughput(all.get(name), inFlight, 150)
    }
    const samples = new Map(names.map((name) => [name, []]))
    for (let round = 0; round < ROUNDS; round++) {
      const order = names.map((_, k) => names[(k + round) % names.length])
      for (const name of order) {
        // What a case left running (a credit lease's write, a feed's poll) settles first: it
        // must not land in the next case's time.
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
        globalThis.gc?.()
        samples.get(name).push((await throughput(all.get(name), inFlight, ROUND_MS)).opsPerSecond)
      }
    }
    for (const name of names) results.set(`${name}@${inFlight}`, median(samples.get(name)))
  }
} finally {
  for (const close of closers.reverse()) await close()
}

const ops = (name, n) => results.get(`${name}@${n}`)
const format = (n) => (n === undefined ? '-' : Math.round(n).toLocaleString('en-US'))
table(
  ['case', ...IN_FLIGHT.map((n) => `${n} in flight (ops/s)`)],
  [...all.keys()].map((name) => [name, ...IN_FLIGHT.map((n) => format(ops(name, n)))]),
)

const rows = []
const ratio = (a, b, target, what, n) => {
  if (ops(a, n) === undefined || ops(b, n) === undefined) return
  const value = ops(a, n) / ops(b, n)
  rows.push([
    what,
    `${a} / ${b}`,
    String(n),
    `${value.toFixed(2)}x`,
    `>= ${target}x`,
    value >= target ? 'met' : 'NOT met',
  ])
}
for (const store of ['sqlite', 'mysql', 'pg']) {
  for (const n of IN_FLIGHT) {
    ratio(store, `${store}-floor`, 0.9, 'uncached vs raw prepared lookup', n)
    ratio(`${store}-cached`, 'memory', 0.8, 'cached vs memory store', n)
    ratio(`${store}-credits`, `${store}-cached`, 0.5, 'credits vs cached', n)
  }
}
if (ops('sqlite-floor-arrays', 1) !== undefined) {
  for (const n of IN_FLIGHT) {
    const value = ops('sqlite', n) / ops('sqlite-floor-arrays', n)
    rows.push([
      'uncached vs the same lookup with array rows',
      'sqlite / sqlite-floor-arrays',
      String(n),
      `${value.toFixed(2)}x`,
      '(none)',
      '',
    ])
  }
}
console.log('\nTargets (ratios of the medians of the rounds):\n')
table(['figure', 'cases', 'in flight', 'measured', 'target', ''], rows)
console.log(
  `\n${machineLine()} ${ROUNDS} rounds of ${ROUND_MS} ms per case, in rotating order. ${KEYS} keys per case.` +
    ' Pools of 10 connections. -floor: a raw prepared lookup of the precomputed hash with the same driver;' +
    ' -cached: the verification cache on, through a guard; -credits: the same guard on keys with a balance.' +
    (notes.length ? ` ${notes.join(' ')}` : ''),
)
