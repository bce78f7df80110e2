import { audit } from '../../api'
import { AuditCells } from '../../components/AuditCells'
import { explainAudit, target } from '../../components/audit-words'
import { ListTable } from '../../components/ListTable'
import { usePaged } from '../../components/paged'
import { ListStates } from '../../components/States'

/** The signed-in developer's audit log: every change of their keys and projects, newest first. */
export function Audit() {
  const paged = usePaged(audit.list)

  return (
    <main id="main" class="stack">
      <h1>Audit log</h1>
      <p class="muted">
        Every change of your keys and projects, and your sign-ins, newest first: who made it, from where, and
        when. Keys show by their prefix only.
      </p>
      <ListTable caption="Audit log" columns={['When', 'Action', 'Actor', 'Target', 'Address']}>
        {paged.items.map((entry) => (
          <tr key={entry.seq}>
            <AuditCells entry={entry} />
            <td data-label="Target" class="mono">
              {target(entry)}
            </td>
            <td data-label="Address" class="mono">
              {entry.client_address ?? '—'}
            </td>
          </tr>
        ))}
      </ListTable>
      <ListStates
        paged={paged}
        what="the audit log"
        message={explainAudit}
        empty={<p>No changes recorded yet.</p>}
      />
    </main>
  )
}
