import { useMemo, useState } from 'preact/hooks'
import type { AuditEntry } from '../../api'
import { AuditHistory } from '../../components/AuditHistory'
import { Choice } from '../../components/Fields'

// The actions of the rows about identities, which the audit log filters by, one at a time.
const ACTIONS: readonly { value: AuditEntry['action']; label: string }[] = [
  { value: 'identity.updated', label: 'Identities changed' },
  { value: 'identity.created', label: 'Identities created' },
  { value: 'key.identity_set', label: 'Keys joining or leaving an identity' },
]

/** Whether a row is about the identity `id`: its own, or a key's joining or leaving it. */
const about = (entry: AuditEntry, id: string) =>
  (entry.target.type === 'identity' && entry.target.id === id) ||
  (entry.action === 'key.identity_set' &&
    (entry.after?.identity_id === id || entry.before?.identity_id === id))

/**
 * The changes of a project's identities, of one action at a time, the rows of the identity `id`
 * marked: the audit log filters by project and action, not by identity. Read again once the
 * identity changes (`changedAt`).
 */
export function IdentityHistory({
  projectId,
  identityId,
  changedAt,
}: {
  projectId: string
  identityId: string
  /** When the identity last changed: the rows are read again after a change. */
  changedAt: string
}) {
  const [action, setAction] = useState(ACTIONS[0]!.value)
  const search = useMemo(() => ({ projectId, action }), [projectId, action])
  return (
    <AuditHistory
      key={changedAt}
      search={search}
      caption="Changes of the project's identities"
      what="the changes"
      mark={(entry) => about(entry, identityId)}
      empty={<p>No such change in this project is recorded.</p>}
    >
      <div class="inline-form">
        <label for="identity-history-action">Show</label>
        <Choice id="identity-history-action" value={action} choices={ACTIONS} onChange={setAction} />
      </div>
      <p class="hint">
        The audit log is read by project and by action, not yet by identity: these are the rows of every
        identity of the project, this one's marked “this one”.
      </p>
    </AuditHistory>
  )
}
