// The audit rows of the service's writes: who, from where, when, and what changed. Apart from the
// audit topic (./audit.ts) so that every topic that writes can build its rows.
import { canonicalJson } from '../audit/chain.js'
import type {
  AuditAction,
  AuditContext,
  AuditEntry,
  AuditEvent,
  AuditValues,
  AuditWrite,
  CreditAuditWrite,
} from '../audit/types.js'
import type { CreditsLowAt } from '../credits/low-at.js'
import type { CreditChange, CreditState } from '../credits/types.js'
import type { KeyRecord } from '../store/types.js'

/** @internal The context of a write that names none. */
export const SYSTEM: AuditContext = { actor: { type: 'system' } }

const utf8 = new TextEncoder()

// A key's fields as compared between two versions of it: never its hash, only its 8-character prefix.
const keyFields = (record: KeyRecord): AuditValues => ({
  key_prefix: record.keyPrefix,
  name: record.name,
  active: record.active,
  revoked_reason: record.active ? null : (record.revokedReason ?? 'revoked'),
  expires_at: record.expiresAt?.toISOString() ?? null,
  replaced_by: record.replacedBy ?? null,
  ip_allowlist: record.ipAllowlist ?? null,
  permissions: record.permissions ?? null,
  metadata: record.metadata ?? null,
  ratelimits: record.ratelimits ?? null,
  role_ids: record.roleIds?.length ? record.roleIds : null,
  credits_low_at: record.creditsLowAt ?? null,
  // Only of a key that has one: the rows of an identity's keys name it (see matchesAuditFilter).
  ...(record.identityId ? { identity_id: record.identityId } : {}),
})

/**
 * The fields as the audit log keeps them: a key's metadata is data of the host's (a
 * customer id, a plan), and the append-only log never deletes, so it says that the key had
 * metadata and its size, never its content: `{"redacted": true, "bytes": N}` (N the UTF-8 size
 * of its canonical JSON), or `null` for none.
 */
/** @internal */
export function auditedFields(values: AuditValues): AuditValues {
  if (!('metadata' in values) || values.metadata === null || values.metadata === undefined) return values
  const bytes = utf8.encode(canonicalJson(values.metadata)).length
  return { ...values, metadata: { redacted: true, bytes } }
}

// The fields that differ, before and after (compared as canonical JSON: a database may reorder
// the members of a JSON column).
/** @internal The fields that differ, before and after. */
export function changed(
  before: AuditValues,
  after: AuditValues,
): { before: AuditValues; after: AuditValues } {
  const was: Record<string, unknown> = {}
  const is: Record<string, unknown> = {}
  for (const field of Object.keys(after)) {
    if (canonicalJson(before[field]) !== canonicalJson(after[field])) {
      was[field] = before[field]
      is[field] = after[field]
    }
  }
  return { before: was, after: is }
}

/** @internal Builds the service's audit rows: who, from where, when, and what changed. */
export class AuditRows {
  constructor(
    readonly on: boolean,
    private readonly now: () => Date,
    /** The context of a write given none. */
    private readonly fallback: AuditContext = SYSTEM,
  ) {}

  /** A row of an event, from a context (absent: the service's `auditContext`, else the system). */
  event(event: AuditEvent, context: AuditContext = this.fallback, at: Date = this.now()): AuditEntry {
    return {
      at,
      action: event.action,
      actor: context.actor,
      clientAddress: context.clientAddress ?? null,
      requestId: context.requestId ?? null,
      developerId: event.developerId,
      projectId: event.projectId ?? null,
      targetType: event.targetType,
      targetId: event.targetId,
      before: event.before ?? null,
      after: event.after ?? null,
    }
  }

  /**
   * The rows of a write to keys: one per written record, with the fields that changed since
   * `previous` (all of them for a new key), or none where nothing changed. `developerOf` names
   * the developer whose log holds a key's row; `extra` adds fields to the row's `after`.
   * `undefined` when the store does not audit.
   */
  keys(
    action: AuditAction | ((record: KeyRecord) => AuditAction | null),
    context: AuditContext | undefined,
    developerOf: (record: KeyRecord) => string | null,
    previous: (record: KeyRecord) => KeyRecord | null,
    extra?: (record: KeyRecord) => AuditValues,
  ): AuditWrite | undefined {
    if (!this.on) return undefined
    const at = this.now()
    const alongside = (context?.with ?? []).map((event) => this.event(event, context, at))
    return (written) => [
      ...(written.length > 0 ? alongside : []),
      ...written.flatMap((record) => {
        const name = typeof action === 'function' ? action(record) : action
        if (name === null) return []
        const before = previous(record)
        const diff = before ? changed(keyFields(before), keyFields(record)) : null
        if (diff && Object.keys(diff.after).length === 0) return []
        const entry = this.event(
          {
            action: name,
            targetType: 'key',
            targetId: record.id,
            developerId: developerOf(record),
            projectId: record.ownerType === 'project' ? record.ownerId : null,
            // Compared with the metadata, kept without it.
            before: diff ? auditedFields({ key_prefix: record.keyPrefix, ...diff.before }) : null,
            after: {
              ...auditedFields(diff ? { key_prefix: record.keyPrefix, ...diff.after } : keyFields(record)),
              ...extra?.(record),
            },
          },
          context,
          at,
        )
        // What its webhook event names beyond the changed fields: the key's name.
        return [{ ...entry, subject: { key_prefix: record.keyPrefix, name: record.name } }]
      }),
    ]
  }

  /**
   * The row of a change of a key's credits (`key.credits_changed`): `remaining` before and after
   * (before: as the store read it under its lock, after a due refill), `refill` and
   * `credits_low_at` too when they changed (`lowAtBefore`: the threshold before), and the change
   * asked for (`op`, `amount`). `undefined` when the store does not audit.
   */
  credits(
    change: CreditChange,
    context: AuditContext | undefined,
    developerOf: (record: KeyRecord) => string | null,
    lowAtBefore: CreditsLowAt | null = null,
  ): CreditAuditWrite | undefined {
    if (!this.on) return undefined
    const at = this.now()
    const alongside = (context?.with ?? []).map((event) => this.event(event, context, at))
    return ({ before, record }) => {
      const after = {
        remaining: record.remaining ?? null,
        refill: record.refill ?? null,
        creditsLowAt: record.creditsLowAt ?? null,
      }
      const entry = this.event(
        {
          action: 'key.credits_changed',
          targetType: 'key',
          targetId: record.id,
          developerId: developerOf(record),
          projectId: record.ownerType === 'project' ? record.ownerId : null,
          ...creditChangeValues(
            { key_prefix: record.keyPrefix },
            change,
            { ...before, creditsLowAt: lowAtBefore },
            after,
          ),
        },
        context,
        at,
      )
      return [...alongside, entry]
    }
  }
}

type Credits = Pick<CreditState, 'remaining' | 'refill'> & { readonly creditsLowAt?: CreditsLowAt | null }

/**
 * @internal The audited values of a change of credits, after the fields that name whose they are
 * (`named`): `remaining` before and after (before: as the store read it under its lock, after a
 * due refill), `refill` too when it changed, and the change asked for (`op`, `amount`).
 */
export function creditChangeValues(
  named: AuditValues,
  change: CreditChange,
  before: Credits,
  after: Credits,
): { before: AuditValues; after: AuditValues } {
  const asked =
    change.op === 'set' ? { op: 'set', amount: change.remaining } : { op: change.op, amount: change.amount }
  const refillChanged = canonicalJson(before.refill) !== canonicalJson(after.refill)
  // A threshold the change cleared (see keptCreditsLowAt) is named too.
  const lowAtChanged =
    canonicalJson(before.creditsLowAt ?? null) !== canonicalJson(after.creditsLowAt ?? null)
  const changedFields = (credits: Credits) => ({
    ...(refillChanged ? { refill: credits.refill } : {}),
    ...(lowAtChanged ? { credits_low_at: credits.creditsLowAt ?? null } : {}),
  })
  return {
    before: { ...named, remaining: before.remaining, ...changedFields(before) },
    after: { ...named, remaining: after.remaining, ...changedFields(after), ...asked },
  }
}
