import { useCallback, useState } from 'preact/hooks'
import { ApiError, type AuditEntry, audit } from '../../api'
import { Message } from '../../components/Message'
import { usePaged } from '../../components/paged'
import { when } from '../../format'

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
function action(entry: AuditEntry): string {
  const words = ACTIONS[entry.action] ?? entry.action
  if (entry.action !== 'key.credits_changed' || !entry.before || !entry.after) return words
  return `${words}: ${balance(entry.before.remaining)} → ${balance(entry.after.remaining)}`
}

/** Who made a change: a developer by the prefix of their key, or the operator, a scan, the system. */
function actor({ actor }: AuditEntry): string {
  if (actor.type === 'developer') return `${actor.developer_id} (${actor.key_prefix}...)`
  if (actor.type === 'operator') return actor.name ? `Operator ${actor.name}` : 'Operator'
  return actor.type === 'secret_scanning' ? 'Secret scanning' : 'System'
}

/** What a change was about: a key by its prefix (never the key), a project, a developer. */
function target(entry: AuditEntry): string {
  const prefix = (entry.after?.key_prefix ?? entry.before?.key_prefix) as string | undefined
  if (entry.target.type === 'key') return prefix ? `Key ${prefix}...` : `Key ${entry.target.id}`
  if (entry.target.type === 'project') {
    const name = (entry.after?.name ?? entry.before?.name) as string | undefined
    return name ? `Project “${name}”` : `Project ${entry.target.id}`
  }
  return `Developer ${entry.target.id}`
}

/** The signed-in developer's audit log: every change of their keys and projects, newest first. */
export function Audit() {
  const [error, setError] = useState('')
  const failed = useCallback((failure: unknown) => {
    const absent = failure instanceof ApiError && (failure.status === 404 || failure.status === 405)
    setError(
      absent
        ? 'This server keeps no audit log.'
        : failure instanceof ApiError
          ? failure.message
          : 'Something went wrong. Try again.',
    )
  }, [])
  const { items: entries, next, loading, more } = usePaged(audit.list, failed)

  return (
    <main id="main" class="stack">
      <h1>Audit log</h1>
      <p class="muted">
        Every change of your keys and projects, and your sign-ins, newest first: who made it, from where, and
        when. Keys show by their prefix only.
      </p>
      <Message kind="error">{error}</Message>
      <div class="table-wrap">
        <table class="keys">
          <caption class="visually-hidden">Audit log</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Action</th>
              <th scope="col">Actor</th>
              <th scope="col">Target</th>
              <th scope="col">Address</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.seq}>
                <td data-label="When">
                  <time dateTime={entry.at}>{when(entry.at)}</time>
                </td>
                <td data-label="Action">{action(entry)}</td>
                <td data-label="Actor" class="mono">
                  {actor(entry)}
                </td>
                <td data-label="Target" class="mono">
                  {target(entry)}
                </td>
                <td data-label="Address" class="mono">
                  {entry.client_address ?? '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {loading ? <p role="status">Loading…</p> : null}
      {!loading && entries.length === 0 && error === '' ? <p>No changes recorded yet.</p> : null}
      {next !== null && !loading ? (
        <button type="button" class="secondary" onClick={more}>
          Show more
        </button>
      ) : null}
    </main>
  )
}
