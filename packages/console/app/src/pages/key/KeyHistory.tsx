import { useCallback } from 'preact/hooks'
import { ApiError, audit } from '../../api'
import { AuditCells } from '../../components/AuditCells'
import { explainAudit } from '../../components/audit-words'
import { ListTable } from '../../components/ListTable'
import { usePaged } from '../../components/paged'
import { ListStates } from '../../components/States'

/** How many of a key's changes its page shows at a time. */
const HISTORY_PAGE = 10

/** A key's changes, newest first, from the audit log (its rows about this key); nothing on a host without one. */
export function KeyHistory({ keyId }: { keyId: string }) {
  const fetchPage = useCallback((cursor: string | null) => audit.list(cursor, keyId, HISTORY_PAGE), [keyId])
  const paged = usePaged(fetchPage)
  // A host that keeps no audit log has no changes to show: the section is left out.
  const absent =
    paged.failure instanceof ApiError && (paged.failure.status === 404 || paged.failure.status === 405)
  if (absent) return null
  return (
    <section class="stack" aria-labelledby="history-heading">
      <h2 id="history-heading">Changes</h2>
      <ListTable caption="Changes of this key" columns={['When', 'Action', 'Actor']}>
        {paged.items.map((entry) => (
          <tr key={entry.seq}>
            <AuditCells entry={entry} />
          </tr>
        ))}
      </ListTable>
      <ListStates
        paged={paged}
        what="the key's changes"
        message={explainAudit}
        empty={<p>No change of this key is recorded.</p>}
      />
    </section>
  )
}
