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
  'project.created': 'Project created',
  'project.deleted': 'Project deleted',
  'developer.registered': 'Developer registered',
  'console.signed_in': 'Signed in to the console',
  'console.signed_out': 'Signed out of the console',
}

// A balance as a row keeps it: a number, or `null` for unlimited.
const balance = (value: unknown) => (typeof value === 'number' ? value.toLocaleString('en-US') : 'unlimited')

/** What a row's action says, with a change of credits' balance before and after. */
export function action(entry: AuditEntry): string {
  const words = ACTIONS[entry.action] ?? entry.action
  if (entry.action !== 'key.credits_changed' || !entry.before || !entry.after) return words
  return `${words}: ${balance(entry.before.remaining)} → ${balance(entry.after.remaining)}`
}

/** Who made a change: a developer by the prefix of their key, or the operator, a scan, the system. */
export function actor({ actor }: AuditEntry): string {
  if (actor.type === 'developer') return `${actor.developer_id} (${actor.key_prefix}...)`
  if (actor.type === 'operator') return actor.name ? `Operator ${actor.name}` : 'Operator'
  return actor.type === 'secret_scanning' ? 'Secret scanning' : 'System'
}

/** What a change was about: a key by its prefix (never the key), a project, a developer. */
export function target(entry: AuditEntry): string {
  const prefix = (entry.after?.key_prefix ?? entry.before?.key_prefix) as string | undefined
  if (entry.target.type === 'key') return prefix ? `Key ${prefix}...` : `Key ${entry.target.id}`
  if (entry.target.type === 'project') {
    const name = (entry.after?.name ?? entry.before?.name) as string | undefined
    return name ? `Project “${name}”` : `Project ${entry.target.id}`
  }
  return `Developer ${entry.target.id}`
}

/** A failure to read the log: a host without one says so. */
export const explainAudit = (failure: unknown) =>
  failure instanceof ApiError && (failure.status === 404 || failure.status === 405)
    ? 'This server keeps no audit log.'
    : messageOf(failure)
