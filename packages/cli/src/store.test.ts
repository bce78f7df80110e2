import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKeyward, type Keyward } from '@keyward/core'
import { createPgKeyStore } from '@keyward/postgres/pg'
import { createPGliteKeyStore } from '@keyward/postgres/pglite'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PgBouncer, pgbouncerUnavailable } from '../../../scripts/pgbouncer.mjs'
import { EXIT } from './exit.js'
import { run } from './run.js'
import type { OpenedStore } from './store.js'

/** Runs the CLI as `bin` does, with the default store factory, and captures what it printed. */
async function keyward(argv: readonly string[], env: Record<string, string> = {}) {
  let stdout = ''
  let stderr = ''
  const code = await run(argv, {
    stdin: { async *[Symbol.asyncIterator]() {} },
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env,
  })
  // The notice a slow store start prints is feedback, not an error: the tests set it aside.
  return {
    code,
    stdout,
    stderr: stderr.replace(/^keyward: (starting the embedded store|store ready) .*\n/gm, ''),
  }
}

/** Opens the store the CLI wrote to, beside the CLI, runs `use` on a key service over it, closes it. */
async function inStore<T>(open: () => Promise<OpenedStore>, use: (keyward: Keyward) => Promise<T>) {
  const store = await open()
  try {
    return await use(createKeyward({ store }))
  } finally {
    await store.close()
  }
}

/**
 * An operator's round trip through the CLI on a real store: register a developer, list their
 * key, revoke it. The key the CLI printed authenticates against the store until it is revoked.
 */
function operatorRoundTrip(
  storeArgs: () => readonly string[],
  open: () => Promise<OpenedStore>,
  env: () => Record<string, string> = () => ({}),
) {
  it('registers a developer, lists and revokes their key', async () => {
    const cli = (...argv: string[]) => keyward([...argv, ...storeArgs()], env())

    const registered = await cli('developers', 'register', 'dev_1', '--name', 'laptop', '--json')
    expect([registered.code, registered.stderr]).toEqual([EXIT.ok, ''])
    const { key, notice, ...listed } = JSON.parse(registered.stdout)
    expect(notice).toContain('will not be shown again')
    expect(listed).toMatchObject({ key_prefix: key.slice(0, 8), developer_id: 'dev_1', active: true })

    const again = await cli('developers', 'register', 'dev_1')
    expect(again.code).toBe(EXIT.failed)
    expect(again.stderr).toContain('Developer dev_1 is already registered (1 active key)')

    expect(JSON.parse((await cli('keys', 'list', '--developer', 'dev_1', '--json')).stdout)).toEqual({
      keys: [listed],
      next_cursor: null,
    })
    const issued = await inStore(open, async (service) => {
      const auth = await service.authenticate({ developerKey: key }, { scope: 'developer' })
      expect(auth).toMatchObject({ developerId: 'dev_1', developerKey: { id: listed.id } })
      return service.issueProjectKey('proj_1', { name: 'default' })
    })
    const projectKeys = await cli('keys', 'list', '--project', 'proj_1')
    expect(projectKeys.stdout).toContain(`${issued.record.id}  ${issued.record.keyPrefix}...  default  yes`)

    const revoked = await cli('keys', 'revoke', listed.id, '--json')
    expect([revoked.code, JSON.parse(revoked.stdout)]).toEqual([
      EXIT.ok,
      { ...listed, active: false, revoked_reason: 'revoked' },
    ])
    const table = await cli('keys', 'list', '--developer', 'dev_1')
    expect(table.stdout).toContain(`${listed.id}  ${listed.key_prefix}...  laptop  no`)
    expect(table.stdout).toContain('1 key, 0 active.')
    await inStore(open, async (service) => {
      await expect(service.authenticate({ developerKey: key }, { scope: 'developer' })).rejects.toMatchObject(
        { type: 'key_invalid' },
      )
    })

    const activated = await cli('keys', 'activate', listed.id, '--json')
    expect([activated.code, JSON.parse(activated.stdout)]).toEqual([EXIT.ok, listed])
    const developers = await cli('developers', 'list', '--json')
    expect(JSON.parse(developers.stdout).developers).toContainEqual({
      developer_id: 'dev_1',
      keys: 1,
      active_keys: 1,
      first_created_at: listed.created_at,
      last_created_at: listed.created_at,
    })

    const unknown = await cli('keys', 'revoke', crypto.randomUUID())
    expect(unknown.code).toBe(EXIT.failed)
    expect(unknown.stderr).toMatch(/^keyward: No key with id [0-9a-f-]{36}\.\n$/)
    for (const output of [registered, again, projectKeys, revoked, table, activated, developers, unknown]) {
      expect(`${output.stdout}${output.stderr}`.split(key)).toHaveLength(output === registered ? 2 : 1)
    }
  }, 120_000)
}

describe('the CLI on an embedded PGlite directory', () => {
  let dataDir: string
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'keyward-cli-'))
  })
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true })
  })

  operatorRoundTrip(
    () => ['--data-dir', dataDir],
    () => createPGliteKeyStore({ dataDir }),
  )

  it('refuses the directory while another process has it open (exit 3), and opens it after', async () => {
    const server = await createPGliteKeyStore({ dataDir })
    let held: Awaited<ReturnType<typeof keyward>>
    try {
      held = await keyward(['keys', 'list', '--developer', 'dev_1', '--data-dir', dataDir])
    } finally {
      await server.close()
    }
    expect(held.code).toBe(EXIT.storeUnavailable)
    expect(held.stderr).toContain(`The PGlite data directory ${dataDir} is open in process ${process.pid}:`)
    expect(held.stderr).toContain('Stop that process first')
    const after = await keyward(['keys', 'list', '--developer', 'dev_1', '--data-dir', dataDir])
    expect([after.code, after.stderr]).toEqual([EXIT.ok, ''])
  })

  it('refuses a directory that does not exist rather than creating an empty store (exit 3)', async () => {
    const missing = join(dataDir, 'typo')
    const result = await keyward(['developers', 'register', 'dev_2', '--data-dir', missing])
    expect(result.code).toBe(EXIT.storeUnavailable)
    expect(result.stderr).toBe(
      `keyward: Cannot open the store: No PGlite data directory at ${missing}. Start the server once to ` +
        'create it, or create an empty directory to start a new store there.\n',
    )
    const file = join(dataDir, 'a-file')
    await writeFile(file, '')
    expect((await keyward(['keys', 'list', '--project', 'p', '--data-dir', file])).code).toBe(
      EXIT.storeUnavailable,
    )
  })
})

// Against a real server only when one is named (skipped, and said so, without); CI names one.
// The database is shared: the tables go in a schema of this run's own, dropped at the end.
const PG_URL = process.env.KEYWARD_PG_URL as string
const PGBOUNCER_MISSING = pgbouncerUnavailable()
describe.skipIf(!PG_URL)('the CLI on PostgreSQL (set KEYWARD_PG_URL to run)', () => {
  const schema = `kw_cli_test_${process.pid}_${Date.now().toString(36)}`
  const pooledSchema = `${schema}_pooled`
  const admin = new pg.Client({ connectionString: PG_URL })
  beforeAll(() => admin.connect())
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await admin.query(`DROP SCHEMA IF EXISTS "${pooledSchema}" CASCADE`)
    await admin.end()
  })

  describe('with --pg-url and --pg-schema', () => {
    operatorRoundTrip(
      () => ['--pg-url', PG_URL, '--pg-schema', schema],
      () => createPgKeyStore({ connectionString: PG_URL }, { schema }),
    )
  })

  it('reads KEYWARD_PG_URL and KEYWARD_PG_SCHEMA, and writes only to that schema', async () => {
    const env = { KEYWARD_PG_URL: PG_URL, KEYWARD_PG_SCHEMA: schema }
    const result = await keyward(['developers', 'register', 'dev_env', '--json'], env)
    expect(result.code).toBe(EXIT.ok)
    const { id } = JSON.parse(result.stdout)
    const { rows } = await admin.query(`SELECT developer_id FROM "${schema}".api_keys WHERE id = $1`, [id])
    expect(rows).toEqual([{ developer_id: 'dev_env' }])
  })

  it('revokes under strict revocation when the servers do: the revocation returns a bound after its commit', async () => {
    const env = { KEYWARD_PG_URL: PG_URL, KEYWARD_PG_SCHEMA: schema, KEYWARD_REVOCATION_BOUND_MS: '400' }
    const registered = await keyward(['developers', 'register', 'dev_strict', '--json'], env)
    const { id } = JSON.parse(registered.stdout)
    const started = performance.now()
    const revoked = await keyward(['keys', 'revoke', id, '--json'], env)
    const revokedAt = performance.now()
    expect([revoked.code, JSON.parse(revoked.stdout).active]).toEqual([EXIT.ok, false])
    expect(revokedAt - started).toBeGreaterThanOrEqual(400)
  })

  it('8 registrations of one developer at once, each on its own connection, issue one key', async () => {
    const env = { KEYWARD_PG_URL: PG_URL, KEYWARD_PG_SCHEMA: schema }
    await keyward(['developers', 'list'], env) // the schema exists before the race
    const results = await Promise.all(
      Array.from({ length: 8 }, () => keyward(['developers', 'register', 'dev_race', '--json'], env)),
    )
    expect(results.map((r) => r.code).sort()).toEqual([0, ...Array(7).fill(EXIT.failed)])
    for (const refused of results.filter((r) => r.code !== EXIT.ok)) {
      expect(JSON.parse(refused.stderr).detail[0].type).toBe('already_registered')
    }
    const { rows } = await admin.query(`SELECT active FROM "${schema}".api_keys WHERE developer_id = $1`, [
      'dev_race',
    ])
    expect(rows).toEqual([{ active: true }])
  })

  describe.skipIf(PGBOUNCER_MISSING)(
    `through PgBouncer in transaction mode${PGBOUNCER_MISSING ? ` (skipped: ${PGBOUNCER_MISSING})` : ''}`,
    () => {
      let bouncer: PgBouncer | undefined
      beforeAll(async () => {
        bouncer = await PgBouncer.start({ server: PG_URL, poolMode: 'transaction' })
      })
      afterAll(() => bouncer?.destroy())

      operatorRoundTrip(
        () => ['--pg-url', bouncer!.through(PG_URL), '--pg-schema', pooledSchema],
        () => createPgKeyStore({ connectionString: PG_URL }, { schema: pooledSchema }),
        // Strict revocation by default: its change feed listens on a direct connection.
        () => ({ KEYWARD_PG_PREPARED_STATEMENTS: 'off', KEYWARD_PG_LISTEN_URL: PG_URL }),
      )
    },
  )
})
