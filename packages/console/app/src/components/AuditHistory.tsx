import type { ComponentChildren } from 'preact'
import { useCallback } from 'preact/hooks'
import { ApiError, type AuditEntry, type AuditSearch, audit } from '../api'
import { AuditCells } from './AuditCells'
import { explainAudit, target } from './audit-words'
import { ListTable } from './ListTable'
import { usePaged } from './paged'
import { ListStates } from './States'

/** How many rows a page's changes show at a time. */
const HISTORY_PAGE = 10

/**
 * The "Changes" of a page: the audit log's rows that `search` names (memoized by the caller),
 * newest first, ten at a time; with `mark`, a column of what each row is about, the rows it
 * accepts marked `this one`. `children` come between the heading and the rows (a filter, a note).
 * A host that keeps no audit log gets no section.
 */
export function AuditHistory({
  search,
  caption,
  what,
  empty,
  mark,
  children,
}: {
  search: AuditSearch
  caption: string
  what: string
  empty: ComponentChildren
  mark?: (entry: AuditEntry) => boolean
  children?: ComponentChildren
}) {
  const fetchPage = useCallback((cursor: string | null) => audit.list(cursor, search, HISTORY_PAGE), [search])
  const paged = usePaged(fetchPage)
  // A host that keeps no audit log has no changes to show: the section is left out.
  const absent =
    paged.failure instanceof ApiError && (paged.failure.status === 404 || paged.failure.status === 405)
  if (absent) return null
  const columns = mark ? ['When', 'Action', 'Actor', 'About'] : ['When', 'Action', 'Actor']
  return (
    <section class="stack" aria-labelledby="history-heading">
      <h2 id="history-heading">Changes</h2>
      {children}
      <ListTable caption={caption} columns={columns}>
        {paged.items.map((entry) => (
          <tr key={entry.seq}>
            <AuditCells entry={entry} />
            {mark ? (
              <td data-label="About" class="mono">
                <span>
                  {target(entry)}
                  {mark(entry) ? <span class="badge">this one</span> : null}
                </span>
              </td>
            ) : null}
          </tr>
        ))}
      </ListTable>
      <ListStates paged={paged} what={what} message={explainAudit} empty={empty} />
    </section>
  )
}
