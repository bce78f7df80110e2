import { useMemo } from 'preact/hooks'
import { AuditHistory } from '../../components/AuditHistory'

/** A key's changes, newest first, from the audit log (its rows about this key); nothing on a host without one. */
export function KeyHistory({ keyId }: { keyId: string }) {
  const search = useMemo(() => ({ keyId }), [keyId])
  return (
    <AuditHistory
      search={search}
      caption="Changes of this key"
      what="the key's changes"
      empty={<p>No change of this key is recorded.</p>}
    />
  )
}
