import type { AuditEntry } from '../api'
import { action, actor } from './audit-words'
import { When } from './States'

/** The cells every listing of audit rows begins with: when, what, and who. */
export function AuditCells({ entry }: { entry: AuditEntry }) {
  return (
    <>
      <td data-label="When">
        <When value={entry.at} />
      </td>
      <td data-label="Action">{action(entry)}</td>
      <td data-label="Actor" class="mono">
        {actor(entry)}
      </td>
    </>
  )
}
