// better-auth's own API writes its keys into a database of its own; `keyward import --from
// better-auth` reads them, and Keyward verifies every one as better-auth would have: active ones
// with their credits and expiry, disabled and expired ones refused.
import { apiKey } from '@better-auth/api-key'
import { createKeyward, isKeywardError } from '@keyward/core'
import { createPgKeyStore } from '@keyward/postgres/pg'
import { betterAuth } from 'better-auth'
import { getMigrations } from 'better-auth/db/migration'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CliIO } from '../io.js'
import { run } from '../run.js'

const PG_URL = process.env.KEYWARD_PG_URL
const KEYS = 1000
const EXPIRED = 50
const USERS = 20
const DAY_MS = 86_400_000
const suffix = `${Date.now().toString(36)}_${process.pid}`
const database = `keyward_better_auth_${suffix}`
const schema = `keyward_ba_import_${suffix}`

/** What better-auth answered when it made a key, and how it should verify. */
interface Made {
  readonly key: string
  readonly id: string
  readonly disabled: boolean
  readonly expired: boolean
  readonly remaining: number | null
  readonly expiresAt: Date | null
}

/** The endpoints of better-auth (and its api-key plugin) this test calls, server-side. */
interface ApiKeyEndpoints {
  signUpEmail(input: {
    body: { email: string; password: string; name: string }
  }): Promise<{ user: { id: string } }>
  createApiKey(input: { body: Record<string, unknown> }): Promise<{
    key: string
    id: string
    remaining: number | null
    expiresAt: Date | string | null
  }>
  updateApiKey(input: { body: { keyId: string; userId: string; enabled: boolean } }): Promise<unknown>
}

function urlOf(name: string): string {
  const url = new URL(PG_URL!)
  url.pathname = `/${name}`
  return url.toString()
}

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: PG_URL })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

describe.skipIf(!PG_URL)('keyward import --from better-auth (set KEYWARD_PG_URL to run)', () => {
  const made: Made[] = []
  let pool: pg.Pool

  beforeAll(async () => {
    await admin(`CREATE DATABASE ${database}`)
    pool = new pg.Pool({ connectionString: urlOf(database), max: 4 })
    const auth = betterAuth({
      database: pool,
      secret: 'a-test-secret-of-better-auth-0123456789',
      baseURL: 'http://127.0.0.1:3000',
      emailAndPassword: { enabled: true },
      telemetry: { enabled: false },
      // The plugin's release pins another @better-auth/utils than better-auth's: the types differ, the code does not.
      plugins: [
        apiKey({ defaultPrefix: 'ba_', enableMetadata: true, keyExpiration: { minExpiresIn: 0 } }) as never,
      ],
    })
    const api = auth.api as unknown as ApiKeyEndpoints
    const { runMigrations } = await getMigrations(auth.options)
    await runMigrations()
    const users: string[] = []
    for (let u = 0; u < USERS; u++) {
      const signed = await api.signUpEmail({
        body: { email: `user${u}@example.test`, password: 'a-long-password-1', name: `User ${u}` },
      })
      users.push(signed.user.id)
    }
    // Limits, refills, expiry, permissions and metadata by turns; one key in ten disabled. The
    // expired ones come last, made to expire in 8 seconds, so that better-auth's clean-up of
    // expired keys (at a creation, at most every 10 seconds) has not removed them when it reads.
    const make = async (i: number) => {
      const expired = i >= KEYS - EXPIRED
      const limited = i % 3 === 0
      const body = {
        userId: users[i % USERS]!,
        name: `key ${i}`,
        ...(limited ? { remaining: (i % 7) + 1, refillAmount: 100, refillInterval: DAY_MS } : {}),
        ...(expired ? { expiresIn: 8 } : i % 5 === 0 ? { expiresIn: 30 * 86_400 } : {}),
        ...(i % 4 === 0
          ? { permissions: { files: ['read', 'write'] }, metadata: { plan: 'pro', n: i } }
          : {}),
      }
      const created = await api.createApiKey({ body })
      const disabled = !expired && i % 10 === 1
      // Server-side, an update names the key's user.
      if (disabled)
        await api.updateApiKey({ body: { keyId: created.id, userId: body.userId, enabled: false } })
      made.push({
        key: created.key,
        id: created.id,
        disabled,
        expired,
        remaining: created.remaining ?? null,
        expiresAt: created.expiresAt ? new Date(created.expiresAt) : null,
      })
    }
    for (let i = 0; i < KEYS; i++) await make(i)
    // The expired keys' time passes.
    await new Promise((resolve) => setTimeout(resolve, 8500))
  }, 600_000)

  afterAll(async () => {
    await pool?.end()
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  })

  it('imports every key better-auth wrote; each verifies as better-auth would, disabled and expired ones refused', async () => {
    const rows = await pool.query<{ enabled: boolean; n: string }>(
      'SELECT enabled, count(*) AS n FROM apikey GROUP BY enabled ORDER BY enabled',
    )
    expect(rows.rows.map((r) => [r.enabled, Number(r.n)])).toEqual([
      [false, made.filter((m) => m.disabled).length],
      [true, KEYS - made.filter((m) => m.disabled).length],
    ])

    let stdout = ''
    let stderr = ''
    const io: CliIO = {
      stdin: { async *[Symbol.asyncIterator]() {} },
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: {},
    }
    const argv = [
      'import',
      '--from',
      'better-auth',
      '--source-url',
      urlOf(database),
      '--project',
      'proj_ba',
      '--pg-url',
      PG_URL!,
      '--pg-schema',
      schema,
      '--batch',
      '300',
    ]
    const code = await run(argv, io)
    expect(code, stderr).toBe(0)
    expect(stdout).toContain(`${KEYS} records read: imported ${KEYS}, 0 already present, 0 bad`)
    // Again: nothing changes.
    stdout = ''
    expect(await run(argv, io)).toBe(0)
    expect(stdout).toContain(`${KEYS} records read: imported 0, ${KEYS} already present, 0 bad`)

    const store = await createPgKeyStore({ connectionString: PG_URL! }, { schema })
    try {
      const keyward = createKeyward({ store, foreignKeys: [{ prefix: 'ba_', minLength: 67, maxLength: 67 }] })
      const outcomes = { accepted: 0, refused: 0 }
      for (const key of made) {
        const verdict = await keyward.verifyApiKey({ projectKey: key.key }, { projectId: 'proj_ba' }).then(
          (record) => record,
          (error: unknown) => (isKeywardError(error) ? error.type : error),
        )
        if (key.disabled || key.expired) {
          expect(verdict, key.id).toBe('key_invalid')
          outcomes.refused++
          continue
        }
        expect((verdict as { remaining?: number | null }).remaining ?? null, key.id).toBe(key.remaining)
        expect(verdict, key.id).toMatchObject({
          active: true,
          expiresAt: key.expiresAt,
          ownerId: 'proj_ba',
          identity: expect.objectContaining({ externalId: expect.any(String) }),
        })
        outcomes.accepted++
      }
      const expectedRefused = made.filter((m) => m.disabled || m.expired).length
      expect(outcomes).toEqual({ accepted: KEYS - expectedRefused, refused: expectedRefused })
      // Credits are spent as better-auth counted them down: a key with 1 left verifies once more.
      const one = made.find((m) => m.remaining === 1 && !m.disabled && !m.expired)!
      const auth = await keyward.authenticate(
        { projectKey: one.key },
        { scope: 'project', projectId: 'proj_ba' },
      )
      expect(await keyward.spendCredits(auth.projectKey, 1)).toEqual({ 'x-credits-remaining': '0' })
      expect(await keyward.spendCredits(auth.projectKey, 1)).toMatchObject({ type: 'usage_exceeded' })
      const withPermissions = await keyward.verifyApiKey(
        { projectKey: made[4]!.key },
        { projectId: 'proj_ba' },
      )
      expect(withPermissions).toMatchObject({
        permissions: ['files:read', 'files:write'],
        metadata: { plan: 'pro', n: 4 },
      })
      await keyward.close()
    } finally {
      await store.close()
    }
  }, 600_000)
})
