// better-auth's API keys, read straight from its PostgreSQL database (the `apikey` table of its
// api-key plugin), as records to import: its SHA-256 base64url `key`, `start`, `enabled`,
// credits and refill, expiry, permissions and metadata. Its users become identities of one project.
import type { ImportRecord } from '@keyward/core'

/** Where better-auth's keys are, and whose keys they become. */
export interface BetterAuthSource {
  readonly connectionString: string
  /** The SQL schema of better-auth's tables; default `public`. */
  readonly schema?: string
  /** The table of its api-key plugin; default `apikey`. */
  readonly table?: string
  /** The Keyward project whose API keys they become; each user (or reference) an identity of it. */
  readonly projectId: string
  /** Rows read per query; default 1000. */
  readonly pageSize?: number
}

/** A row of better-auth's `apikey` table, as node-postgres returns it. */
export interface BetterAuthKeyRow {
  readonly id: string
  readonly name: string | null
  readonly start: string | null
  readonly prefix: string | null
  readonly key: string
  /** `referenceId` since better-auth 1.4, `userId` before. */
  readonly owner: string
  readonly refillInterval: number | null
  readonly refillAmount: number | null
  readonly lastRefillAt: Date | null
  readonly enabled: boolean | null
  readonly remaining: number | null
  readonly lastRequest: Date | null
  readonly expiresAt: Date | null
  readonly createdAt: Date
  readonly permissions: string | null
  readonly metadata: string | null
}

const DAY_MS = 86_400_000
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/

const iso = (date: Date | null) => (date ? new Date(date).toISOString() : null)

// better-auth refills every `refillInterval` milliseconds; Keyward daily or monthly. Another
// interval is handed over as it is, and refused by the import's check with the record's number.
function refillOf(row: BetterAuthKeyRow): Pick<ImportRecord, 'refill_amount' | 'refill_interval'> {
  if (row.refillAmount === null || row.refillInterval === null) return {}
  const interval = Number(row.refillInterval)
  const named =
    interval === DAY_MS ? 'daily' : interval >= 28 * DAY_MS && interval <= 31 * DAY_MS ? 'monthly' : null
  return {
    refill_amount: Number(row.refillAmount),
    refill_interval: (named ?? `every ${interval} ms`) as ImportRecord['refill_interval'],
  }
}

// Its permissions are a JSON object of resource to actions: `{"files":["read"]}` is `files:read`.
function permissionsOf(text: string | null): string[] | string | null {
  if (text === null || text === '') return null
  try {
    const value = JSON.parse(text) as unknown
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return text
    return Object.entries(value as Record<string, unknown>).flatMap(([resource, actions]) =>
      Array.isArray(actions) ? actions.map((action) => `${resource}:${String(action)}`) : [`${resource}:?`],
    )
  } catch {
    return text
  }
}

// Its metadata is JSON text, in some versions JSON text of JSON text.
function metadataOf(text: string | null): unknown {
  if (text === null || text === '') return null
  try {
    const value = JSON.parse(text) as unknown
    return typeof value === 'string' ? JSON.parse(value) : value
  } catch {
    return text
  }
}

/** @internal A row of better-auth's `apikey` table as a record to import into `projectId`. */
export function betterAuthRecord(row: BetterAuthKeyRow, projectId: string): ImportRecord {
  const prefix = (row.start ?? row.prefix ?? '').slice(0, 8)
  return {
    hash: row.key,
    hash_format: 'sha256-base64url',
    project_id: projectId,
    external_id: row.owner,
    name: row.name === '' ? null : row.name,
    ...(prefix ? { prefix } : {}),
    active: row.enabled !== false,
    created_at: iso(row.createdAt),
    expires_at: iso(row.expiresAt),
    last_used_at: iso(row.lastRequest),
    remaining: row.remaining === null ? null : Number(row.remaining),
    ...refillOf(row),
    refilled_at: iso(row.lastRefillAt),
    permissions: permissionsOf(row.permissions),
    metadata: metadataOf(row.metadata) as ImportRecord['metadata'],
  }
}

/**
 * @internal The keys of better-auth's table, oldest first (`createdAt`, then `id`: a key made
 * while the import runs comes last, so a cursor stays right), a page per query, as records.
 */
export async function* betterAuthRecords(source: BetterAuthSource): AsyncIterable<ImportRecord> {
  const schema = source.schema ?? 'public'
  const table = source.table ?? 'apikey'
  for (const [name, value] of [
    ['--source-schema', schema],
    ['--source-table', table],
  ]) {
    if (!IDENTIFIER.test(value!))
      throw new TypeError(`${name} must be an SQL identifier, got ${JSON.stringify(value)}.`)
  }
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: source.connectionString })
  await client.connect()
  try {
    const columns = await client.query<{ column_name: string }>(
      'SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
      [schema, table],
    )
    const names = new Set(columns.rows.map((row) => row.column_name))
    if (names.size === 0) throw new TypeError(`better-auth's table "${schema}"."${table}" was not found.`)
    const owner = names.has('referenceId') ? 'referenceId' : 'userId'
    const optional = (column: string) => (names.has(column) ? `"${column}"` : `NULL AS "${column}"`)
    const select = `SELECT id, name, start, prefix, key, "${owner}" AS owner, "refillInterval", "refillAmount",
        "lastRefillAt", enabled, remaining, ${optional('lastRequest')}, "expiresAt", "createdAt",
        ${optional('permissions')}, ${optional('metadata')}
      FROM "${schema}"."${table}"`
    const pageSize = source.pageSize ?? 1000
    let after: { createdAt: Date; id: string } | null = null
    for (;;) {
      const page: { rows: BetterAuthKeyRow[] } = after
        ? await client.query<BetterAuthKeyRow>(
            `${select} WHERE ("createdAt", id) > ($1, $2) ORDER BY "createdAt", id LIMIT ${pageSize}`,
            [after.createdAt, after.id],
          )
        : await client.query<BetterAuthKeyRow>(`${select} ORDER BY "createdAt", id LIMIT ${pageSize}`)
      for (const row of page.rows) yield betterAuthRecord(row, source.projectId)
      const last = page.rows.at(-1)
      if (!last || page.rows.length < pageSize) return
      after = { createdAt: last.createdAt, id: last.id }
    }
  } finally {
    await client.end()
  }
}
