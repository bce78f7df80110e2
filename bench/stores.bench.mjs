// The stores side by side, in one process and one run, at 1 and 16 requests in flight: SQLite (a
// file), MySQL or MariaDB (KEYWARD_MYSQL_URL) and PostgreSQL (KEYWARD_PG_URL), each against
//   - its floor: a raw prepared lookup of the presented key with the same driver (its SHA-256 by
//     node:crypto, then the statement), reading the columns a key record is made of (uncached
//     verification, target >= 0.9x); beside it, with no target, the same statement given the
//     hash computed beforehand (-floor-prehashed), which leaves the key's hash out of the floor;
//   - the memory store (cached verification, where the store has a change feed: target >= 0.8x);
//   - itself cached (a guard spending credits of a key with a balance, leased in blocks: target >= 0.5x).
// Each round measures the two cases of every comparison one after the other; a figure is the
// median of its rounds' ratios.

import { hash as nodeHash } from 'node:crypto'
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

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9)
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
 * A cached case as a server runs it: the event loop turns every 256 verifications, as it does for
 * each request's I/O. A cached verification needs none, so a loop of them alone would run only
 * microtasks, and starve the change feed's timers and polls: a feed not heard from within its
 * bound counts as late, and the cache bypasses itself until it is heard again.
 */
const turning = (op) => (i) => ((i & 255) === 0 ? new Promise(setImmediate).then(() => op(i)) : op(i))

/**
 * A store's cases: uncached verification, its floor, cached verification and credits (where the
 * store has a change feed), from keys issued through the store.
 */
// The keys of the last store given to storeCases.
let lastKeys = []
async function storeCases(label, store, floor) {
  const issuer = createKeyward({ store, usage: false })
  const keys = []
  const metered = []
  for (let i = 0; i < KEYS; i++) {
    keys.push((await issuer.issueProjectKey(PROJECT)).key)
    metered.push((await issuer.issueProjectKey(PROJECT, { remaining: CREDITS })).key)
  }
  const hashes = await Promise.all(keys.map(hashKey))
  lastKeys = keys
  const uncached = createKeyward({ store, usage: false, trackLastUsed: false })
  const cases = new Map([
    [`${label}`, (i) => uncached.authenticate({ projectKey: keys[i % KEYS] }, requirement)],
    // A key is stored only as its SHA-256: a raw lookup of a presented key hashes it first.
    [`${label}-floor`, (i) => floor(nodeHash('sha256', keys[i % KEYS], 'hex'))],
    [`${label}-floor-prehashed`, (i) => floor(hashes[i % KEYS])],
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
    cases.set(`${label}-cached`, turning(guarded(plain)))
    cases.set(`${label}-credits`, turning(guarded(paying)))
    closers.push(() => {
      const { bypassed } = cached.cacheStats()
      if (bypassed > 0)
        notes.push(`${label}: ${bypassed} lookups bypassed the cache (its feed late or down).`)
      return cached.close()
    })
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
  all.set(
    'memory',
    turning((i) => cached.authenticate({ projectKey: keys[i % KEYS] }, requirement)),
  )
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
  const sqliteKeys = lastKeys
  all.set('sqlite-floor-arrays', async (i) =>
    found(arrays.get(nodeHash('sha256', sqliteKeys[i % KEYS], 'hex'))),
  )
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

// The comparisons of the report: [case, reference, target (null: shown with no target), what].
const pairs = []
for (const store of ['sqlite', 'mysql', 'pg']) {
  pairs.push([store, `${store}-floor`, 0.9, 'uncached vs raw prepared lookup'])
  pairs.push([`${store}-cached`, 'memory', 0.8, 'cached vs memory store'])
  pairs.push([`${store}-credits`, `${store}-cached`, 0.5, 'credits vs cached'])
}
for (const store of ['sqlite', 'mysql', 'pg']) {
  pairs.push([store, `${store}-floor-prehashed`, null, 'uncached vs the lookup of a precomputed hash'])
}
pairs.push(['sqlite', 'sqlite-floor-arrays', null, 'uncached vs the same lookup with array rows'])
const measured = pairs.filter(([a, b]) => all.has(a) && all.has(b))

// Each round measures the two cases of every comparison one right after the other, in alternating
// order, and takes their ratio: a machine that slows down or speeds up over seconds moves both.
// A figure is the median of its rounds' ratios; a case's ops/s, the median of all its rounds.
const samples = new Map()
const ratios = new Map()
try {
  for (const inFlight of IN_FLIGHT) {
    // Warm up: every key seen once by every case (a cache then answers the rounds).
    for (const op of all.values()) {
      for (let i = 0; i < KEYS; i += 16) await Promise.all(Array.from({ length: 16 }, (_, k) => op(i + k)))
      await throughput(op, inFlight, 150)
    }
    const run = async (name) => {
      // What a case left running (a credit lease's write, a feed's poll) settles first: it must
      // not land in the next case's time.
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
      globalThis.gc?.()
      const { opsPerSecond } = await throughput(all.get(name), inFlight, ROUND_MS)
      const key = `${name}@${inFlight}`
      samples.set(key, [...(samples.get(key) ?? []), opsPerSecond])
      return opsPerSecond
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < measured.length; k++) {
        const [a, b] = measured[(k + round) % measured.length]
        let ratio
        if ((round + k) % 2 === 0) ratio = (await run(a)) / (await run(b))
        else {
          const second = await run(b)
          ratio = (await run(a)) / second
        }
        const key = `${a}/${b}@${inFlight}`
        ratios.set(key, [...(ratios.get(key) ?? []), ratio])
      }
    }
  }
} finally {
  for (const close of closers.reverse()) await close()
}

const ops = (name, n) => (samples.has(`${name}@${n}`) ? median(samples.get(`${name}@${n}`)) : undefined)
const format = (n) => (n === undefined ? '-' : Math.round(n).toLocaleString('en-US'))
table(
  ['case', ...IN_FLIGHT.map((n) => `${n} in flight (ops/s)`)],
  [...all.keys()].map((name) => [name, ...IN_FLIGHT.map((n) => format(ops(name, n)))]),
)

const rows = []
for (const [a, b, target, what] of measured) {
  for (const n of IN_FLIGHT) {
    const value = median(ratios.get(`${a}/${b}@${n}`))
    const verdict = target === null ? ['(none)', ''] : [`>= ${target}x`, value >= target ? 'met' : 'NOT met']
    rows.push([what, `${a} / ${b}`, String(n), `${value.toFixed(2)}x`, ...verdict])
  }
}
console.log('\nTargets (medians of the ratios of adjacent measurements, one a round):\n')
table(['figure', 'cases', 'in flight', 'measured', 'target', ''], rows)
console.log(
  `\n${machineLine()} ${ROUNDS} rounds; in each, the two cases of every comparison measured one after the other, ${ROUND_MS} ms each, in alternating order. ${KEYS} keys per case.` +
    ' Pools of 10 connections. -floor: a raw prepared lookup of the key with the same driver (its SHA-256, then' +
    ' the statement); -floor-prehashed: the statement alone, given the hash;' +
    ' -cached: the verification cache on, through a guard; -credits: the same guard on keys with a balance.' +
    (notes.length ? ` ${notes.join(' ')}` : ''),
)
