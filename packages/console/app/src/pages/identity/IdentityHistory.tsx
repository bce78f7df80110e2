import { useMemo } from 'preact/hooks'
import { AuditHistory } from '../../components/AuditHistory'

/**
 * The changes of the identity `id`, newest first: its own rows (created, changed, its credits) and
 * its keys' joining or leaving it, as the audit log filters them by `identity_id`. Read again
 * once the identity changes (`changedAt`).
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
  const search = useMemo(() => ({ projectId, identityId }), [projectId, identityId])
  return (
    <AuditHistory
      key={changedAt}
      search={search}
      caption="Changes of this identity"
      what="the changes"
      empty={<p>No change of this identity is recorded yet.</p>}
    />
  )
}
