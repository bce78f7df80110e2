import type { CreditChangeResult, KeyRecord } from '../store/record.js'

/**
 * Who made a change the audit log records: a developer (through the API or the console, named by
 * their id and the 8-character prefix of the key they used), the CLI's operator, the
 * secret-scanning endpoint (a leak report), or the system (the host's own code).
 *
 * @example
 * ```ts
 * const actor: AuditActor = { type: 'developer', developerId: 'dev_1', keyPrefix: 'ak_Ab3xY' }
 * ```
 */
export type AuditActor =
  | { readonly type: 'developer'; readonly developerId: string; readonly keyPrefix: string }
  | { readonly type: 'operator'; readonly name?: string }
  | { readonly type: 'secret_scanning' }
  | { readonly type: 'system' }

/**
 * Who asks for a change, and from where: what the key service writes into each audit row of it.
 * The HTTP routes build it from the authenticated key and the request (`auditContext`); a host
 * passes its own to the service's write methods. Absent: the actor is `{ type: 'system' }`.
 *
 * @example
 * ```ts
 * await keyward.deactivateKey(keyId, { actor: { type: 'operator', name: 'alice' }, requestId: 'cli-1' })
 * ```
 */
export interface AuditContext {
  readonly actor: AuditActor
  /** The client's address, as the throttle reads it; `null` when there is none (the CLI). */
  readonly clientAddress?: string | null
  /** The request's id (its `X-Request-Id`, or one made up for it); `null` when there is none. */
  readonly requestId?: string | null
  /**
   * Rows of a change of the host's that the write belongs to, appended before the write's own in
   * the same transaction: the key routes give the default key of a new project the row
   * `project.created`. Only the key service's write methods read it.
   */
  readonly with?: readonly AuditEvent[]
}

/** Something other than a key that the audit log records: a project, a developer, a sign-in. */
export interface AuditEvent {
  readonly action: AuditAction
  readonly targetType: AuditTargetType
  readonly targetId: string
  /** The developer whose log holds the row; `null` when none is known. */
  readonly developerId: string | null
  readonly projectId?: string | null
  readonly before?: AuditValues | null
  readonly after?: AuditValues | null
}

/** What a row of the audit log records. */
export type AuditAction =
  | 'key.issued'
  | 'key.revoked'
  | 'key.revoked_leaked'
  | 'key.rolled'
  | 'key.activated'
  | 'key.expiry_set'
  | 'key.policies_set'
  | 'key.credits_changed'
  | 'key.identity_set'
  | 'identity.created'
  | 'identity.updated'
  | 'identity.deleted'
  | 'identity.credits_changed'
  | 'role.created'
  | 'role.updated'
  | 'role.deleted'
  | 'project.created'
  | 'project.deleted'
  | 'developer.registered'
  | 'console.signed_in'
  | 'console.signed_out'
  | 'webhook_endpoint.created'
  | 'webhook_endpoint.updated'
  | 'webhook_endpoint.deleted'
  | 'webhook_endpoint.secret_rolled'
  | 'webhook_endpoint.disabled'

/** Every {@link AuditAction}, for checks and documentation. */
export const AUDIT_ACTIONS: readonly AuditAction[] = [
  'key.issued',
  'key.revoked',
  'key.revoked_leaked',
  'key.rolled',
  'key.activated',
  'key.expiry_set',
  'key.policies_set',
  'key.credits_changed',
  'key.identity_set',
  'identity.created',
  'identity.updated',
  'identity.deleted',
  'identity.credits_changed',
  'role.created',
  'role.updated',
  'role.deleted',
  'project.created',
  'project.deleted',
  'developer.registered',
  'console.signed_in',
  'console.signed_out',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rolled',
  'webhook_endpoint.disabled',
]

/** What a row of the audit log is about. */
export type AuditTargetType = 'key' | 'project' | 'developer' | 'identity' | 'role' | 'webhook_endpoint'

/** Changed fields, by their API name (snake_case), as JSON values. Never key material. */
export type AuditValues = { readonly [field: string]: unknown }

/**
 * One change, as the key service hands it to the store to append. It never holds a key or a
 * key's hash: keys are named by id and 8-character prefix.
 */
export interface AuditEntry {
  /** When the change was made (the service's clock). */
  readonly at: Date
  readonly action: AuditAction
  readonly actor: AuditActor
  readonly clientAddress: string | null
  readonly requestId: string | null
  /** The developer whose log holds the row: the owner of the key or project; `null` if unknown. */
  readonly developerId: string | null
  /** The project concerned (a project, or a project's key), else `null`. */
  readonly projectId: string | null
  readonly targetType: AuditTargetType
  readonly targetId: string
  /** The changed fields before the change; `null` for a creation. */
  readonly before: AuditValues | null
  /** The changed fields after the change; `null` for a deletion. */
  readonly after: AuditValues | null
  /**
   * What a webhook event of the row says of its target beyond the row's fields (a key's name):
   * not part of the row, never hashed or kept in the log. Optional.
   */
  readonly subject?: AuditValues
}

/**
 * A row of the audit log: an {@link AuditEntry} with its place in the chain. `hash` is the
 * SHA-256 (hex) of the canonical JSON of the row (its API form without `hash`, `previous_hash`
 * included): see `auditRowHash`.
 */
export interface AuditRecord extends AuditEntry {
  /** The row's position in the log: 1, 2, 3, ... with no gap. */
  readonly seq: number
  /** The `hash` of the row before it; {@link AUDIT_GENESIS_HASH} for the first. */
  readonly previousHash: string
  readonly hash: string
}

/** The `previousHash` of the first row of a log: 64 zeros. */
export const AUDIT_GENESIS_HASH = '0'.repeat(64)

/**
 * The end of the chain as the store keeps it, apart from the rows: the last row's `seq` and
 * `hash`, and where the rows start (`startSeq`, `startHash`: 0 and the genesis hash, unless an
 * operator pruned the oldest rows, see the audit guide). A deleted last row shows against it.
 */
export interface AuditChainHead {
  readonly seq: number
  readonly hash: string
  readonly startSeq: number
  readonly startHash: string
}

/**
 * The audit rows of what a store call wrote: the store calls it with the key records as written
 * (none when it wrote nothing) and appends its rows in the same transaction, so that the change
 * cannot commit without them. A throw rolls the change back.
 */
export type AuditWrite = (written: readonly KeyRecord[]) => readonly AuditEntry[]

/**
 * The audit rows of a change of a key's credits (`changeCredits`): the store calls it with the
 * credits before the change, as it read them under its lock (after a due refill), and the record
 * after, and appends its rows in the same transaction. A throw rolls the change back.
 *
 * @example
 * ```ts
 * // In a store's changeCredits, inside its transaction, after the write:
 * if (audit) await appendInTransaction(tx, audit({ before, record }))
 * ```
 */
export type CreditAuditWrite = (changed: CreditChangeResult) => readonly AuditEntry[]

/** What {@link KeyStore.listAudit} is asked for: one developer's rows, newest first. */
export interface AuditQuery {
  readonly developerId: string
  /** Only the rows of this project. */
  readonly projectId?: string
  /** How many rows at most, 1 to 200. */
  readonly limit: number
  /** Rows with a `seq` below this one (the `next` of the previous page); absent for the first page. */
  readonly beforeSeq?: number
  /** Only the rows about this key (`target` a key with this id). */
  readonly keyId?: string
  /**
   * Only the rows about this identity: its own (`target` the identity with this id), and those
   * of a key whose `identity_id` is this id before or after (issued into it, joining or leaving
   * it, revoked with it).
   */
  readonly identityId?: string
  /** Only the rows of this action. */
  readonly action?: AuditAction
  /** Only the rows at or after this time. */
  readonly from?: Date
  /** Only the rows before this time. */
  readonly to?: Date
}

/** One page of audit rows, newest first. */
export interface AuditPage {
  readonly records: AuditRecord[]
  /** The `beforeSeq` of the next page, or `null` on the last page. */
  readonly next: number | null
}
