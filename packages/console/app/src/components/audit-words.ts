// The audit log's rows in words: what happened, who did it, what it was about.
import { ApiError, type AuditEntry, messageOf } from '../api'

// What a row's action says, in words.
const ACTIONS: Readonly<Record<string, string>> = {
  'key.issued': 'Key created',
  'key.revoked': 'Key revoked',
  'key.revoked_leaked': 'Key revoked: leaked',
  'key.rolled': 'Key rolled',
  'key.activated': 'Key re-activated',
  'key.expiry_set': 'Expiry set',
  'key.policies_set': 'Policies changed',
  'key.credits_changed': 'Credits changed',
  'key.identity_set': 'Identity set',
  'identity.created': 'Identity created',
  'identity.updated': 'Identity changed',
  'identity.deleted': 'Identity deleted',
  'identity.credits_changed': 'Credit pool changed',
  'role.created': 'Role created',
  'role.updated': 'Role changed',
  'role.deleted': 'Role deleted',
  'webhook_endpoint.created': 'Webhook endpoint added',
  'webhook_endpoint.updated': 'Webhook endpoint changed',
  'webhook_endpoint.deleted': 'Webhook endpoint deleted',
  'webhook_endpoint.secret_rolled': 'Webhook signing secret rolled',
  'webhook_endpoint.disabled': 'Webhook endpoint disabled',
  'project.created': 'Project created',
  'project.deleted': 'Project deleted',
  'developer.registered': 'Developer registered',
  'console.signed_in': 'Signed in to the console',
  'console.signed_out': 'Signed out of the console',
}

// A balance as a row keeps it: a number, or `null` for unlimited.
const balance = (value: unknown) => (typeof value === 'number' ? value.toLocaleString('en-US') : 'unlimited')

/**
 * What a row's action says, with a change of credits' balance (a key's, or an identity's pool)
 * before and after, and whether a key joined an identity or left it.
 */
export function action(entry: AuditEntry): string {
  const words = ACTIONS[entry.action] ?? entry.action
  if (entry.action === 'key.identity_set' && entry.after?.identity_id === null) return 'Identity removed'
  const credits = entry.action === 'key.credits_changed' || entry.action === 'identity.credits_changed'
  if (!credits || !entry.before || !entry.after) return words
  return `${words}: ${balance(entry.before.remaining)} → ${balance(entry.after.remaining)}`
}

/** Who made a change: a developer by the prefix of their key, or the operator, a scan, the system. */
export function actor({ actor }: AuditEntry): string {
  if (actor.type === 'developer') return `${actor.developer_id} (${actor.key_prefix}...)`
  if (actor.type === 'operator') return actor.name ? `Operator ${actor.name}` : 'Operator'
  return actor.type === 'secret_scanning' ? 'Secret scanning' : 'System'
}

// A field of the row, after the change or, when it did not change, before it.
const field = (entry: AuditEntry, name: string) =>
  (entry.after?.[name] ?? entry.before?.[name]) as string | undefined

/**
 * What a change was about: a key by its prefix (never the key), a project by its name, an identity
 * by its external id and a role by its name (when the row holds them), a webhook endpoint, a developer.
 */
export function target(entry: AuditEntry): string {
  const { type, id } = entry.target
  if (type === 'key') {
    const prefix = field(entry, 'key_prefix')
    return prefix ? `Key ${prefix}...` : `Key ${id}`
  }
  if (type === 'project') {
    const name = field(entry, 'name')
    return name ? `Project “${name}”` : `Project ${id}`
  }
  if (type === 'identity') {
    const externalId = field(entry, 'external_id')
    return externalId ? `Identity “${externalId}”` : `Identity ${id}`
  }
  if (type === 'role') {
    const name = field(entry, 'name')
    return name ? `Role “${name}”` : `Role ${id}`
  }
  if (type === 'webhook_endpoint') return `Webhook endpoint ${id}`
  return `Developer ${id}`
}

/** A failure to read the log: a host without one says so. */
export const explainAudit = (failure: unknown) =>
  failure instanceof ApiError && (failure.status === 404 || failure.status === 405)
    ? 'This server keeps no audit log.'
    : messageOf(failure)
