// What one uncached verification asks of the database: the statements it runs, counted through a
// SqlDatabase wrapped around the store's. A plain key (no roles, no identity) costs one indexed
// read and nothing else (no read of roles or identities, no write, no transaction); a key with
// roles or an identity one read more each; an unknown or revoked key the same one read.
import { createKeyward, type Keyward } from '@keyward/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SqlDatabase, SqlDialect, SqlExecutor } from '../dialect.js'
import { migrateSql } from '../migrate.js'
import { SqlKeyStore } from '../store.js'

/** A database of the store's, and what closes it (and drops what it made). */
export interface CountedDatabase {
  readonly db: SqlDatabase
  close(): Promise<void>
}

const PROJECT = 'proj_statements'
const requirement = { scope: 'project', projectId: PROJECT } as const
// Plain keys, and keys under a pepper: the lookup reads every hash the key may have in one statement.
const PEPPER = { id: 'p1', secret: 'a pepper of at least thirty-two bytes, for the test' }
// The permissions this service declares (a role's permissions are among them).
const permissions = ['reports:read']

/**
 * Runs the cases on the store of `open()`'s database, under `tablePrefix`: each statement the
 * database is asked to run is recorded (its text), a transaction as `BEGIN`.
 */
export function describeVerificationStatements(given: {
  readonly dialect: SqlDialect
  readonly tablePrefix: string
  readonly open: () => Promise<CountedDatabase>
}) {
  const ran: string[] = []
  // The database's own ways, each recorded: the lookup takes `firstValues` where it has one.
  const record = (into: SqlExecutor): SqlExecutor => {
    const recorded: SqlExecutor = {
      query: (text, params) => {
        ran.push(text)
        return into.query(text, params)
      },
      run: (text, params) => {
        ran.push(text)
        return into.run(text, params)
      },
    }
    if (!into.firstValues) return recorded
    const firstValues = into.firstValues.bind(into)
    return {
      ...recorded,
      firstValues: (text, params) => {
        ran.push(text)
        return firstValues(text, params)
      },
    }
  }
  let opened: CountedDatabase
  let store: SqlKeyStore
  let admin: Keyward
  // Verifications as the benchmark of the stores makes them: no cache, no last use, no usage.
  const verifier = (hashing?: { pepper: (typeof PEPPER)[] }) =>
    createKeyward({ store, permissions, usage: false, trackLastUsed: false, ...(hashing ? { hashing } : {}) })
  // The statements of one verification of `key` (its outcome too, refused or not).
  const statementsOf = async (keyward: Keyward, key: string) => {
    ran.length = 0
    const outcome = await keyward.authenticate({ projectKey: key }, requirement).then(
      () => 'accepted',
      (error: unknown) => (error as { reason?: string }).reason ?? 'refused',
    )
    return { outcome, statements: ran.map((text) => text.replace(/\s+/g, ' ').trim()) }
  }
  const byHash = () => new RegExp(`^SELECT .* FROM ${store.tables.keys} WHERE hash = \\?$`)
  // An accepted verification of `key` that reads the key, then one row set of `table`.
  const expectKeyThen = async (key: string, table: string) => {
    const keyward = verifier()
    try {
      const { outcome, statements } = await statementsOf(keyward, key)
      expect(outcome).toBe('accepted')
      expect(statements).toHaveLength(2)
      expect(statements[0]).toMatch(byHash())
      expect(statements[1]).toContain(table)
    } finally {
      await keyward.close()
    }
  }

  beforeAll(async () => {
    opened = await given.open()
    await migrateSql(opened.db, given.dialect, { tablePrefix: given.tablePrefix })
    const db = opened.db
    const counted: SqlDatabase = {
      ...record(db),
      transaction: (fn) => {
        ran.push('BEGIN')
        return db.transaction((tx) => fn(record(tx)))
      },
    }
    store = new SqlKeyStore(counted, given.dialect, { tablePrefix: given.tablePrefix })
    admin = createKeyward({ store, permissions, usage: false })
  })
  afterAll(async () => {
    await admin?.close()
    await opened?.close()
  })

  describe('an uncached verification', () => {
    it('of a plain key runs one statement: the read of the key by its hash', async () => {
      const { key } = await admin.issueProjectKey(PROJECT)
      const keyward = verifier()
      try {
        for (let i = 0; i < 3; i++) {
          const { outcome, statements } = await statementsOf(keyward, key)
          expect(outcome).toBe('accepted')
          expect(statements).toHaveLength(1)
          expect(statements[0]).toMatch(byHash())
        }
      } finally {
        await keyward.close()
      }
    })

    it('of an unknown key, or a revoked one, runs the same one statement, and refuses it', async () => {
      const { key, record } = await admin.issueProjectKey(PROJECT)
      await admin.deactivateKey(record.id)
      const keyward = verifier()
      try {
        const unknown = `${key.slice(0, -4)}${key.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`
        for (const refused of [key, unknown]) {
          const { outcome, statements } = await statementsOf(keyward, refused)
          expect(outcome).not.toBe('accepted')
          expect(statements).toHaveLength(1)
          expect(statements[0]).toMatch(byHash())
        }
      } finally {
        await keyward.close()
      }
    })

    it('of a key with roles runs two: the key, then its roles in one read', async () => {
      await admin.createRole(PROJECT, { name: `reader_${given.dialect.name}`, permissions: ['reports:read'] })
      const { key } = await admin.issueProjectKey(PROJECT, { roles: [`reader_${given.dialect.name}`] })
      await expectKeyThen(key, store.tables.roles)
    })

    it('of a key of an identity runs two: the key, then its identity', async () => {
      const identity = await admin.createIdentity(PROJECT, { externalId: `customer_${given.dialect.name}` })
      const { key, record } = await admin.issueProjectKey(PROJECT)
      await admin.setKeyIdentity(record.id, identity.id)
      await expectKeyThen(key, store.tables.identities)
    })

    it('with a pepper runs one statement for every hash the key may have', async () => {
      const peppered = verifier({ pepper: [PEPPER] })
      try {
        const { key } = await peppered.issueProjectKey(PROJECT)
        const { outcome, statements } = await statementsOf(peppered, key)
        expect(outcome).toBe('accepted')
        expect(statements).toHaveLength(1)
        expect(statements[0]).toMatch(new RegExp(`FROM ${store.tables.keys} WHERE hash IN \\(\\?, \\?\\)$`))
      } finally {
        await peppered.close()
      }
    })
  })
}
