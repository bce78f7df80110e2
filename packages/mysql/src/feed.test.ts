// The change feed on real MariaDB or MySQL: revocation across two OS processes (each with a pool,
// a feed and a cache of its own), with strict revocation and without; a failed poll makes the
// cache bypass itself; a transaction that commits out of id order is not skipped; the changes
// of two concurrent writers are all heard; close() ends the feed's own connection.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { createKeyward, ErrorType, type KeyChangeEvent } from '@keyward/core'
import type { SqlKeyStore } from '@keyward/sql'
import mysql from 'mysql2/promise'
import { afterEach, describe, expect, it } from 'vitest'
import { type MysqlChangeFeed, type MysqlChangeFeedOptions, mysqlChangeFeed } from './feed.js'
import { createMysqlKeyStore } from './index.js'
import { MYSQL_URL, mysqlHarness } from './test/harness.js'

const MEMBER = fileURLToPath(new URL('./test/feed-member.mjs', import.meta.url))
const BOUND_MS = 500
const children: ChildProcess[] = []

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await once(child, 'exit')
    }
  }
})

/** A child process running the member script, answering one JSON line a command. */
function member(options: object) {
  const child = spawn(process.execPath, [MEMBER, JSON.stringify(options)], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  children.push(child)
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const waiting: ((line: string) => void)[] = []
  createInterface({ input: child.stdout! }).on('line', (line) => waiting.shift()?.(line))
  return <T>(command: object) =>
    new Promise<T>((resolve, reject) => {
      waiting.push((line) => resolve(JSON.parse(line) as T))
      // 'close', not 'exit': a child that answered and exited has its answer read first.
      child.once('close', (code, signal) => reject(new Error(`exited (${code ?? signal}): ${stderr}`)))
      child.stdin!.write(`${JSON.stringify(command)}\n`)
    })
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const prefixOf = (store: SqlKeyStore) => store.tables.keys.slice(0, -'api_keys'.length)

interface Checked {
  readonly outcome: string
  readonly entries: number
}

describe.skipIf(!MYSQL_URL)('revocation across two processes on MySQL (set KEYWARD_MYSQL_URL to run)', () => {
  // Keys written by this process; a writer and a reader on the same tables, each with a feed.
  async function twoProcesses(strict: boolean) {
    const harness = await mysqlHarness()
    const keyward = createKeyward({ store: harness.store })
    const project = `proj-${Date.now().toString(36)}`
    const issued = await Promise.all([1, 2, 3].map(() => keyward.issueProjectKey(project)))
    const options = { url: MYSQL_URL, tablePrefix: prefixOf(harness.store), strict, boundMs: BOUND_MS }
    const [writer, reader] = [member(options), member(options)]
    const check = (key: string) => reader<Checked>({ op: 'check', key, projectId: project })
    // The reader has each key in its cache, and answers from it (arranging may wait).
    for (const [n, { key }] of issued.entries()) {
      await until('the reader to cache the key', async () => {
        const checked = await check(key)
        return checked.outcome === 'accepted' && checked.entries === n + 1
      })
    }
    const revoke = (id: string) => writer({ op: 'revoke', id })
    const close = async () => {
      await Promise.all([writer({ op: 'close' }), reader({ op: 'close' })])
      await harness.close()
    }
    return { issued, check, revoke, close }
  }

  it('with strict revocation, the other process refuses the key as soon as the revocation returned', async () => {
    const { issued, check, revoke, close } = await twoProcesses(true)
    for (const { key, record } of issued) {
      expect(await check(key)).toMatchObject({ outcome: 'accepted' })
      await revoke(record.id)
      // No waiting: the reader heard it, or its feed is not fresh and it reads the database.
      expect(await check(key)).toMatchObject({ outcome: ErrorType.keyInvalid })
    }
    await close()
  }, 120_000)

  it('without it, the other process refuses the key once the bound has passed since the revocation returned', async () => {
    const { issued, check, revoke, close } = await twoProcesses(false)
    for (const { key, record } of issued) {
      await revoke(record.id)
      await sleep(BOUND_MS)
      expect(await check(key)).toMatchObject({ outcome: ErrorType.keyInvalid })
    }
    await close()
  }, 120_000)
})

describe.skipIf(!MYSQL_URL)('the change feed on MySQL (set KEYWARD_MYSQL_URL to run)', () => {
  it('a failed poll (its connection killed) reports disconnected: the cache empties and bypasses itself, then starts again', async () => {
    const harness = await mysqlHarness()
    const store = await createMysqlKeyStore(
      { connectionString: MYSQL_URL as string },
      // A bound far longer than a starved poll on a loaded machine: here the cache ends only
      // because a poll failed, never because one came late.
      {
        tablePrefix: prefixOf(harness.store),
        migrate: false,
        changeFeed: { pollIntervalMs: 20, freshnessBoundMs: 10_000 },
      },
    )
    const feed = store.changes as MysqlChangeFeed
    const heard: KeyChangeEvent['type'][] = []
    feed.subscribe((event) => heard.push(event.type))
    const keyward = createKeyward({ store, cache: { ttlMs: 600_000 }, trackLastUsed: false })
    const admin = await mysql.createConnection(MYSQL_URL as string)
    try {
      const { key, record } = await keyward.issueProjectKey('proj-killed')
      const outcome = () =>
        keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'proj-killed' }).then(
          () => 'accepted',
          (error: { type: string }) => error.type,
        )
      const setActive = (active: 0 | 1) =>
        admin.query(`UPDATE ${store.tables.keys} SET active = ? WHERE id = ?`, [active, record.id])
      for (let attempt = 1; ; attempt++) {
        await until(
          'the key cached',
          async () => (await outcome()) === 'accepted' && keyward.cacheStats()?.entries === 1,
        )
        const heardBefore = heard.length
        const bypassedBefore = keyward.cacheStats()!.bypassed
        // A write past the store (no change log row): only the cache's end shows it.
        await setActive(0)
        // Read just before the verification, which looks in the cache before its first await.
        const held = keyward.cacheStats()!.entries === 1
        if ((await outcome()) === 'accepted') break
        // The cache may have been left first: emptied by the issue's change read from the change
        // log one poll after this process told of it, or when the feed reports itself
        // disconnected or connected again, or bypassed because a poll failed or came late. The
        // write was then read from the database, rightly, and the case starts again. A refusal
        // while the cache held the key would be a fault.
        expect({
          attempt,
          cacheLeft:
            !held ||
            heard.slice(heardBefore).some((type) => type !== 'changed') ||
            keyward.cacheStats()!.bypassed > bypassedBefore,
        }).toEqual({ attempt: expect.toBeOneOf([1, 2]), cacheLeft: true })
        // The cache now holds the key as inactive: the reactivation, past the store too, is told
        // to it as the store tells of its own writes.
        await setActive(1)
        feed.publish({ type: 'changed', hash: record.hash })
      }
      const threadId = feed.threadId
      expect(threadId).toBeTypeOf('number')
      await admin.query(`KILL ${Number(threadId)}`)
      await until('the feed to report the failed poll', () => heard.includes('disconnected'))
      expect(await outcome()).toBe(ErrorType.keyInvalid)
      // It reconnects, on a new connection, and the cache is in use again.
      await until('the feed to reconnect', () => feed.connected && feed.threadId !== threadId)
      expect(heard.slice(heard.indexOf('disconnected'))).toContain('connected')
      expect(keyward.cacheStats()).toMatchObject({ connected: true, entries: 0 })
    } finally {
      await admin.end()
      await keyward.close()
      await store.close()
      await harness.close()
    }
  }, 60_000)

  // A store on fresh tables and a started feed on them that collects the hashes it hears.
  async function withFeed(
    options: MysqlChangeFeedOptions,
    test: (given: { store: SqlKeyStore; feed: MysqlChangeFeed; hashes: string[] }) => Promise<void>,
  ) {
    const harness = await mysqlHarness()
    const feed = mysqlChangeFeed(
      { connectionString: MYSQL_URL as string },
      { tablePrefix: prefixOf(harness.store), pollIntervalMs: 20, ...options },
    )
    const hashes: string[] = []
    feed.subscribe((event) => {
      if (event.type === 'changed') hashes.push(event.hash)
    })
    try {
      await feed.start()
      await until('the feed connected', () => feed.connected)
      await test({ store: harness.store, feed, hashes })
    } finally {
      await feed.close()
      await harness.close()
    }
  }

  it(
    'a transaction that commits after one with a higher id is not skipped: the cursor waits at the gap',
    () =>
      withFeed({}, async ({ store, hashes }) => {
        const { changeLog, changeCounter } = store.tables
        const early = await mysql.createConnection(MYSQL_URL as string)
        const late = await mysql.createConnection(MYSQL_URL as string)
        try {
          const [counter] = await store.query<{ seq: number }>(
            `SELECT seq FROM ${changeCounter} WHERE id = 1`,
          )
          const seq = Number(counter!.seq)
          // The lower id is written first and commits last (a writer past the counter's lock).
          await early.query('START TRANSACTION')
          const insert = `INSERT INTO ${changeLog} (id, at, hash) VALUES (?, ?, ?)`
          await early.query(insert, [seq + 1, Date.now(), 'first'])
          await late.query(insert, [seq + 2, Date.now(), 'second'])
          await until('the higher id heard', () => hashes.includes('second'))
          await sleep(100)
          expect(hashes).not.toContain('first')
          await early.query('COMMIT')
          await until('the lower id heard after its commit', () => hashes.includes('first'))
          expect(hashes.filter((hash) => hash === 'second')).toHaveLength(1)
        } finally {
          await early.end()
          await late.end()
        }
      }),
    60_000,
  )

  it(
    "two writers at once (two pools): every change is heard, under dense ids in the counter's order",
    () =>
      withFeed({}, async ({ store, hashes }) => {
        const second = await createMysqlKeyStore(
          { connectionString: MYSQL_URL as string },
          { tablePrefix: prefixOf(store), migrate: false },
        )
        try {
          const [a, b] = [createKeyward({ store }), createKeyward({ store: second })]
          const issued = await Promise.all(
            Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).issueProjectKey(`proj-race-${i % 4}`)),
          )
          await Promise.all(issued.map(({ record }, i) => (i % 2 ? b : a).deactivateKey(record.id)))
          await until('every key heard', () => issued.every(({ record }) => hashes.includes(record.hash)))
          const [row] = await store.query<{ n: number; low: number; high: number; seq: number }>(
            `SELECT COUNT(*) AS n, MIN(id) AS low, MAX(id) AS high, (SELECT seq FROM ${store.tables.changeCounter}) AS seq FROM ${store.tables.changeLog}`,
          )
          // Two rows a key (its creation, its deactivation), ids 1..n with no gap.
          expect(Number(row?.n)).toBe(80)
          expect([Number(row?.low), Number(row?.high), Number(row?.seq)]).toEqual([1, 80, 80])
        } finally {
          await second.close()
        }
      }),
    60_000,
  )

  it(
    'close() ends the connection it opened: the server lists it no more',
    () =>
      withFeed({}, async ({ feed }) => {
        const threadId = feed.threadId
        expect(threadId).toBeTypeOf('number')
        const admin = await mysql.createConnection(MYSQL_URL as string)
        try {
          const listed = async () => {
            const [rows] = await admin.query('SELECT id FROM information_schema.processlist WHERE id = ?', [
              threadId,
            ])
            return (rows as unknown[]).length > 0
          }
          expect(await listed()).toBe(true)
          await feed.close()
          expect(feed.threadId).toBeUndefined()
          await until('the connection ended', async () => !(await listed()), 10_000)
        } finally {
          await admin.end()
        }
      }),
    30_000,
  )

  it(
    'prunes rows older than its retention',
    () =>
      withFeed({ retentionMs: 200, pruneIntervalMs: 50 }, async ({ store, hashes }) => {
        const count = async () =>
          Number(
            (await store.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${store.tables.changeLog}`))[0]?.n,
          )
        const { record } = await createKeyward({ store }).issueProjectKey('proj-pruned')
        // The feed read the row (on a loaded machine it may be pruned before a count here sees it).
        await until('the change heard', () => hashes.includes(record.hash), 10_000)
        await until('the row pruned', async () => (await count()) === 0, 10_000)
      }),
    30_000,
  )
})

describe('mysqlChangeFeed and strictRevocation options', () => {
  it('are checked when called, naming the option', async () => {
    expect(() => mysqlChangeFeed({} as never)).toThrow(
      'mysqlChangeFeed: pass `{ pool }` or `{ connectionString }`.',
    )
    expect(() => mysqlChangeFeed({ connectionString: 'mysql://db/keys' }, { pollIntervalMs: 0 })).toThrow(
      'mysqlChangeFeed: option `pollIntervalMs` must be a positive integer, got 0.',
    )
    expect(() =>
      mysqlChangeFeed(
        { connectionString: 'mysql://db/keys' },
        { pollIntervalMs: 500, freshnessBoundMs: 500 },
      ),
    ).toThrow('mysqlChangeFeed: option `freshnessBoundMs` (500) must exceed `pollIntervalMs` (500).')
    await expect(
      createMysqlKeyStore(
        { connectionString: 'mysql://db/keys' },
        { migrate: false, strictRevocation: true },
      ),
    ).rejects.toThrow('SqlKeyStore: strict revocation needs a bound')
  })
})
