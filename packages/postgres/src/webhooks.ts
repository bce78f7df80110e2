import {
  type ClaimedDelivery,
  deliveryEndpoint,
  type EndpointAuditWrite,
  type ExpiringKey,
  endpointLimitError,
  type RefilledCredits,
  type WebhookAttempt,
  type WebhookAttemptRecord,
  type WebhookEndpointChange,
  type WebhookEndpointRecord,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookOutcome,
  type WebhookRedelivery,
  type WebhookStore,
} from '@keyward/core'
import { type AuditStatements, appendAuditIn, outboxRows } from './audit.js'
import { creditRefillStatements, refillDue } from './credit-refills.js'
import type { SqlDriver, SqlQueryable } from './driver.js'
import { UUID } from './key-rows.js'

type EndpointRow = {
  id: string
  developer_id: string
  url: string
  description: string | null
  project_ids: string[] | null
  event_types: WebhookEventType[] | null
  secret: string
  previous_secret: string | null
  previous_secret_expires_at: Date | null
  failing_since: Date | null
  disabled_at: Date | null
  created_at: Date
  updated_at: Date
}

type ClaimRow = EndpointRow & {
  delivery_id: string
  attempts: number
  delivery_created_at: Date
  event_id: string
  event_type: WebhookEventType
  event_developer_id: string
  project_id: string | null
  data: Record<string, unknown>
  event_created_at: Date
}

type AttemptRow = {
  delivery_id: string
  event_id: string
  event_type: WebhookEventType
  endpoint_id: string
  at: Date
  status: number | null
  duration_ms: number
  response: string
}

const toEndpoint = (row: EndpointRow): WebhookEndpointRecord => ({
  id: row.id,
  developerId: row.developer_id,
  url: row.url,
  description: row.description,
  projectIds: row.project_ids,
  eventTypes: row.event_types,
  secret: row.secret,
  previousSecret: row.previous_secret,
  previousSecretExpiresAt: row.previous_secret_expires_at,
  failingSince: row.failing_since,
  disabledAt: row.disabled_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const first = (rows: readonly EndpointRow[]) => (rows[0] ? toEndpoint(rows[0]) : null)

const ENDPOINT_COLUMNS =
  'id, developer_id, url, description, project_ids, event_types, secret, previous_secret, previous_secret_expires_at, failing_since, disabled_at, created_at, updated_at'

/** @internal The statements of the webhooks' tables, for one schema. */
function webhookStatements(schema: string) {
  const endpoints = `"${schema}".webhook_endpoints`
  const events = `"${schema}".webhook_events`
  const deliveries = `"${schema}".webhook_deliveries`
  const attempts = `"${schema}".webhook_attempts`
  return {
    // A developer's endpoints are counted under a lock of the transaction named by the developer.
    lockDeveloper: `SELECT pg_advisory_xact_lock(hashtext('keyward_webhooks:' || $1::text))`,
    count: `SELECT count(*)::int AS n FROM ${endpoints} WHERE developer_id = $1`,
    insert: `INSERT INTO ${endpoints} (${ENDPOINT_COLUMNS})
      VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, NULL, NULL, NULL, $8, $8) RETURNING ${ENDPOINT_COLUMNS}`,
    find: `SELECT ${ENDPOINT_COLUMNS} FROM ${endpoints} WHERE id = $1`,
    list: `SELECT ${ENDPOINT_COLUMNS} FROM ${endpoints} WHERE developer_id = $1 ORDER BY created_at, id`,
    update: `UPDATE ${endpoints} SET
        url = CASE WHEN $2 THEN $3 ELSE url END,
        description = CASE WHEN $4 THEN $5 ELSE description END,
        project_ids = CASE WHEN $6 THEN $7::text[] ELSE project_ids END,
        event_types = CASE WHEN $8 THEN $9::text[] ELSE event_types END,
        disabled_at = CASE WHEN $10 THEN NULL ELSE disabled_at END,
        failing_since = CASE WHEN $10 THEN NULL ELSE failing_since END,
        updated_at = $11
      WHERE id = $1 RETURNING ${ENDPOINT_COLUMNS}`,
    roll: `UPDATE ${endpoints} SET previous_secret = secret, previous_secret_expires_at = $3, secret = $2, updated_at = $4
      WHERE id = $1 RETURNING ${ENDPOINT_COLUMNS}`,
    delete: `WITH gone AS (DELETE FROM ${endpoints} WHERE id = $1 RETURNING ${ENDPOINT_COLUMNS}),
      pending AS (DELETE FROM ${deliveries} WHERE endpoint_id IN (SELECT id FROM gone) AND state = 'pending')
      SELECT * FROM gone`,
    // The events named ($2: one id, or $3..$4: a range) of the endpoint's developer that it takes
    // (or that it was sent before: a test event), each due again at $5 with no attempt counted.
    redeliver: `WITH endpoint AS (SELECT * FROM ${endpoints} WHERE id = $1), chosen AS (
        SELECT event.id FROM ${events} event, endpoint
        WHERE event.developer_id = endpoint.developer_id
          AND ($2::text IS NULL OR event.id = $2)
          AND ($3::timestamptz IS NULL OR (event.created_at >= $3 AND event.created_at < $4))
          AND (EXISTS (SELECT 1 FROM ${deliveries} WHERE event_id = event.id AND endpoint_id = $1)
            OR (event.type <> 'webhook.test'
              AND (endpoint.event_types IS NULL OR event.type = ANY (endpoint.event_types))
              AND (endpoint.project_ids IS NULL OR event.project_id = ANY (endpoint.project_ids))))
      )
      INSERT INTO ${deliveries} (event_id, endpoint_id, due_at, created_at)
      SELECT id, $1, $5, $5 FROM chosen
      ON CONFLICT (event_id, endpoint_id) DO UPDATE SET state = 'pending', due_at = $5, created_at = $5, attempts = 0
      RETURNING 1`,
    // The scheduler's lock: one round at a time across processes, held by the round's transaction.
    schedulerLock: `SELECT pg_try_advisory_xact_lock(hashtext('keyward_webhook_scheduler:' || $1::text)) AS locked`,
    expiring: `SELECT id::text, key_prefix, name, developer_id, project_id, expires_at FROM "${schema}".api_keys
      WHERE active AND replaced_by IS NULL AND expires_at > $1 AND expires_at <= $2 ORDER BY expires_at, id`,
    // Events written once ever: an id in the outbox already is skipped.
    notice: `INSERT INTO ${events} (id, type, developer_id, project_id, data, created_at)
      SELECT id, type, developer_id, project_id, data, created_at
      FROM jsonb_to_recordset($1::jsonb) AS e(id text, type text, developer_id text, project_id text, data jsonb, created_at timestamptz)
      ON CONFLICT (id) DO NOTHING RETURNING 1`,
    // An event for one endpoint: in the outbox as fanned out already, with its one delivery.
    enqueueFor: `WITH event AS (
        INSERT INTO ${events} (id, type, developer_id, project_id, data, created_at, fanned_out)
        VALUES ($2, $3, $4, $5, $6, $7, true) RETURNING id
      )
      INSERT INTO ${deliveries} (event_id, endpoint_id, due_at, created_at) SELECT id, $1, $8, $8 FROM event`,
    // Events not yet fanned out, taken by one caller (SKIP LOCKED), each into one delivery per
    // enabled endpoint of its developer whose filters take it.
    fanOut: `WITH taken AS (
        SELECT id, type, developer_id, project_id FROM ${events}
        WHERE NOT fanned_out ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED
      ), added AS (
        INSERT INTO ${deliveries} (event_id, endpoint_id, due_at, created_at)
        SELECT taken.id, endpoint.id, $2, $2 FROM taken JOIN ${endpoints} endpoint
          ON endpoint.developer_id = taken.developer_id AND endpoint.disabled_at IS NULL
          AND (endpoint.event_types IS NULL OR taken.type = ANY (endpoint.event_types))
          AND (endpoint.project_ids IS NULL OR taken.project_id = ANY (endpoint.project_ids))
        ON CONFLICT (event_id, endpoint_id) DO NOTHING
      )
      UPDATE ${events} SET fanned_out = true FROM taken WHERE ${events}.id = taken.id RETURNING 1`,
    // Deliveries due, taken by one caller (SKIP LOCKED) and leased: due again when the lease ends.
    claim: `WITH due AS (
        SELECT id FROM ${deliveries} WHERE state = 'pending' AND due_at <= $1
        ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED
      )
      UPDATE ${deliveries} delivery SET due_at = $1::timestamptz + $3 * interval '1 millisecond',
        attempts = delivery.attempts + 1
      FROM due, ${events} event, ${endpoints} endpoint
      WHERE delivery.id = due.id AND event.id = delivery.event_id AND endpoint.id = delivery.endpoint_id
      RETURNING delivery.id AS delivery_id, delivery.attempts - 1 AS attempts,
        delivery.created_at AS delivery_created_at, event.id AS event_id, event.type AS event_type,
        event.developer_id AS event_developer_id, event.project_id, event.data, event.created_at AS event_created_at,
        ${ENDPOINT_COLUMNS.split(', ')
          .map((column) => `endpoint.${column}`)
          .join(', ')}`,
    // The attempt logged, the delivery's outcome and the endpoint's failures, in one statement.
    finish: `WITH logged AS (
        INSERT INTO ${attempts} (id, delivery_id, event_id, event_type, endpoint_id, at, status, duration_ms, response)
        VALUES (gen_random_uuid(), $1::uuid, $2, $3, $4, $5, $6, $7, $8)
      ), outcome AS (
        UPDATE ${deliveries} SET state = $9, due_at = COALESCE($10, due_at) WHERE id = $1::uuid
      )
      UPDATE ${endpoints} SET failing_since = CASE WHEN $9 = 'delivered' THEN NULL ELSE COALESCE(failing_since, $5) END
      WHERE id = $4`,
    disable: `WITH failed AS (
        UPDATE ${deliveries} SET state = 'failed' WHERE endpoint_id = $1 AND state = 'pending'
      )
      UPDATE ${endpoints} SET disabled_at = $2 WHERE id = $1 AND disabled_at IS NULL RETURNING ${ENDPOINT_COLUMNS}`,
    attempts: `SELECT delivery_id, event_id, event_type, endpoint_id, at, status, duration_ms, response
      FROM ${attempts} WHERE endpoint_id = $1 ORDER BY at DESC LIMIT $2`,
    prune: `WITH old AS (SELECT id FROM ${attempts} WHERE at < $1 ORDER BY at LIMIT $2),
      gone AS (DELETE FROM ${attempts} WHERE id IN (SELECT id FROM old) RETURNING 1),
      events AS (DELETE FROM ${events} WHERE id IN (
        SELECT id FROM ${events} WHERE fanned_out AND created_at < $1 ORDER BY created_at LIMIT $2)
        AND NOT EXISTS (SELECT 1 FROM ${deliveries} WHERE event_id = ${events}.id AND state = 'pending')),
      deliveries AS (DELETE FROM ${deliveries} WHERE id IN (
        SELECT id FROM ${deliveries} WHERE state <> 'pending' AND created_at < $1 LIMIT $2))
      SELECT count(*)::int AS n FROM gone`,
  }
}

/** @internal What the key store lends its webhooks: its driver and its audit log. */
export interface WebhookStoreAccess {
  readonly db: SqlDriver
  readonly audit: AuditStatements
}

/**
 * The webhooks of a {@link PostgresKeyStore} (`store.webhooks`), in the tables of schema version
 * 12. The outbox (`webhook_events`) is written by the audit append, in the statement that writes
 * the audit rows; dispatchers fan events out and claim deliveries with `FOR UPDATE SKIP LOCKED`,
 * so that no two deliver one attempt at once, and a claim is a lease, so that a dispatcher killed
 * while delivering leaves the delivery due again when the lease ends.
 *
 * @example
 * ```ts
 * const store = await createPgKeyStore({ connectionString: process.env.DATABASE_URL })
 * await store.webhooks.listEndpoints('dev_1')
 * ```
 */
export class PostgresWebhooks implements WebhookStore {
  readonly #sql: ReturnType<typeof webhookStatements>
  readonly #access: WebhookStoreAccess
  readonly #schema: string
  readonly #refills: ReturnType<typeof creditRefillStatements>

  constructor(schema: string, access: WebhookStoreAccess) {
    this.#schema = schema
    this.#refills = creditRefillStatements(schema)
    this.#sql = webhookStatements(schema)
    this.#access = access
  }

  insertEndpoint(
    record: WebhookEndpointRecord,
    limit: number,
    audit?: EndpointAuditWrite,
  ): Promise<WebhookEndpointRecord> {
    return this.#access.db.transaction(async (tx) => {
      await tx.query(this.#sql.lockDeveloper, [record.developerId])
      const [counted] = await tx.query<{ n: number }>(this.#sql.count, [record.developerId])
      if ((counted?.n ?? 0) >= limit) throw endpointLimitError(limit)
      const rows = await tx.query<EndpointRow>(this.#sql.insert, [
        record.id,
        record.developerId,
        record.url,
        record.description,
        record.projectIds,
        record.eventTypes,
        record.secret,
        record.createdAt,
      ])
      return this.#audited(tx, first(rows), audit) as Promise<WebhookEndpointRecord>
    })
  }

  async findEndpoint(id: string): Promise<WebhookEndpointRecord | null> {
    if (!UUID.test(id)) return null
    return first(await this.#access.db.query<EndpointRow>(this.#sql.find, [id]))
  }

  async listEndpoints(developerId: string): Promise<WebhookEndpointRecord[]> {
    return (await this.#access.db.query<EndpointRow>(this.#sql.list, [developerId])).map(toEndpoint)
  }

  async updateEndpoint(id: string, change: WebhookEndpointChange, now: Date, audit?: EndpointAuditWrite) {
    if (!UUID.test(id)) return null
    const given = (value: unknown) => value !== undefined
    return this.#write(audit, this.#sql.update, [
      id,
      given(change.url),
      change.url ?? null,
      given(change.description),
      change.description ?? null,
      given(change.projectIds),
      change.projectIds ?? null,
      given(change.eventTypes),
      change.eventTypes ?? null,
      change.disabled === false,
      now,
    ])
  }

  async rollEndpointSecret(
    id: string,
    secret: string,
    previousExpiresAt: Date,
    now: Date,
    audit?: EndpointAuditWrite,
  ) {
    if (!UUID.test(id)) return null
    return this.#write(audit, this.#sql.roll, [id, secret, previousExpiresAt, now])
  }

  async deleteEndpoint(id: string, audit?: EndpointAuditWrite): Promise<boolean> {
    if (!UUID.test(id)) return false
    return (await this.#write(audit, this.#sql.delete, [id])) !== null
  }

  async redeliver(endpointId: string, which: WebhookRedelivery, now: Date): Promise<number> {
    if (!UUID.test(endpointId)) return 0
    const range = 'from' in which ? [which.from, which.to] : [null, null]
    const rows = await this.#access.db.query(this.#sql.redeliver, [
      endpointId,
      'eventId' in which ? which.eventId : null,
      ...range,
      now,
    ])
    return rows.length
  }

  async enqueueForEndpoint(endpointId: string, event: WebhookEvent, now: Date): Promise<void> {
    await this.#access.db.query(this.#sql.enqueueFor, [
      endpointId,
      event.id,
      event.type,
      event.developerId,
      event.projectId,
      JSON.stringify(event.data),
      event.createdAt,
      now,
    ])
  }

  noticeExpiringKeys(
    from: Date,
    to: Date,
    build: (keys: readonly ExpiringKey[]) => Promise<readonly WebhookEvent[]>,
  ): Promise<number | null> {
    return this.#scheduled(async (tx) => {
      const rows = await tx.query<{
        id: string
        key_prefix: string
        name: string | null
        developer_id: string | null
        project_id: string | null
        expires_at: Date
      }>(this.#sql.expiring, [from, to])
      const events = await build(
        rows.map((row) => ({
          id: row.id,
          keyPrefix: row.key_prefix,
          name: row.name,
          ownerType: row.developer_id === null ? 'project' : 'developer',
          ownerId: row.developer_id ?? row.project_id!,
          expiresAt: row.expires_at,
        })),
      )
      return this.#addEvents(tx, events)
    })
  }

  refillCredits(
    now: Date,
    limit: number,
    build: (refills: readonly RefilledCredits[]) => Promise<readonly WebhookEvent[]>,
  ): Promise<number | null> {
    return this.#scheduled(async (tx) => {
      const refills = await refillDue(tx, this.#refills, now, limit)
      return this.#addEvents(tx, await build(refills))
    })
  }

  // A round of a scheduler in one transaction under the scheduler's lock; `null` when another holds it.
  #scheduled(round: (tx: SqlQueryable) => Promise<number>): Promise<number | null> {
    return this.#access.db.transaction(async (tx) => {
      const [lock] = await tx.query<{ locked: boolean }>(this.#sql.schedulerLock, [this.#schema])
      if (!lock?.locked) return null
      return round(tx)
    })
  }

  addEvents(events: readonly WebhookEvent[]): Promise<number> {
    return this.#addEvents(this.#access.db, events)
  }

  async #addEvents(db: SqlQueryable, events: readonly WebhookEvent[]): Promise<number> {
    if (events.length === 0) return 0
    return (await db.query(this.#sql.notice, [outboxRows(events)])).length
  }

  // One statement that writes an endpoint and returns it, with its audit rows in its transaction.
  #write(audit: EndpointAuditWrite | undefined, text: string, values: unknown[]) {
    if (!audit) {
      return this.#access.db.query<EndpointRow>(text, values).then(first)
    }
    return this.#access.db.transaction(async (tx) =>
      this.#audited(tx, first(await tx.query<EndpointRow>(text, values)), audit),
    )
  }

  async #audited(tx: SqlQueryable, endpoint: WebhookEndpointRecord | null, audit?: EndpointAuditWrite) {
    if (endpoint && audit) await appendAuditIn(tx, this.#access.audit, audit(endpoint))
    return endpoint
  }

  async fanOutEvents(limit: number, now: Date): Promise<number> {
    return (await this.#access.db.query(this.#sql.fanOut, [limit, now])).length
  }

  async claimDeliveries(limit: number, now: Date, leaseMs: number): Promise<ClaimedDelivery[]> {
    const rows = await this.#access.db.query<ClaimRow>(this.#sql.claim, [now, limit, leaseMs])
    return rows.map((row) => ({
      id: row.delivery_id,
      attempts: Number(row.attempts),
      createdAt: row.delivery_created_at,
      event: {
        id: row.event_id,
        type: row.event_type,
        developerId: row.event_developer_id,
        projectId: row.project_id,
        createdAt: row.event_created_at,
        data: row.data,
      },
      endpoint: deliveryEndpoint(toEndpoint(row), now),
    }))
  }

  finishDelivery(
    delivery: ClaimedDelivery,
    attempt: WebhookAttempt,
    outcome: WebhookOutcome,
    disable?: EndpointAuditWrite,
  ): Promise<boolean> {
    return this.#access.db.transaction(async (tx) => {
      await tx.query(this.#sql.finish, [
        delivery.id,
        delivery.event.id,
        delivery.event.type,
        delivery.endpoint.id,
        attempt.at,
        attempt.status,
        Math.round(attempt.durationMs),
        attempt.response,
        outcome.state === 'retry' ? 'pending' : outcome.state,
        outcome.state === 'retry' ? outcome.retryAt : null,
      ])
      if (!disable) return false
      const disabled = first(
        await tx.query<EndpointRow>(this.#sql.disable, [delivery.endpoint.id, attempt.at]),
      )
      if (disabled) await appendAuditIn(tx, this.#access.audit, disable(disabled))
      return disabled !== null
    })
  }

  async listAttempts(endpointId: string, limit: number): Promise<WebhookAttemptRecord[]> {
    if (!UUID.test(endpointId)) return []
    const rows = await this.#access.db.query<AttemptRow>(this.#sql.attempts, [endpointId, limit])
    return rows.map((row) => ({
      deliveryId: row.delivery_id,
      eventId: row.event_id,
      eventType: row.event_type,
      endpointId: row.endpoint_id,
      at: row.at,
      status: row.status,
      durationMs: row.duration_ms,
      response: row.response,
    }))
  }

  async pruneAttempts(before: Date, limit: number): Promise<number> {
    const [row] = await this.#access.db.query<{ n: number }>(this.#sql.prune, [before, limit])
    return row?.n ?? 0
  }
}
