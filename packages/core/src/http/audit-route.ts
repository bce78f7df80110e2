import { auditRecordToJson } from '../audit/chain.js'
import { echoValue } from '../errors/echo.js'
import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import type { Keyward } from '../service/keyward.js'
import type { DeveloperAuth } from '../service/requirements.js'
import { encodeCursor, invalidCursor } from './cursor.js'
import { readPageQuery } from './page-query.js'
import type { KeywardRequest } from './types.js'

// A cursor of the audit log names a row by its `seq`.
const SEQ = /^[1-9][0-9]{0,15}$/

// The query's `project_id`, decoded; absent when not given (an empty one is refused).
function projectParameter(url: string): string | undefined {
  const start = url.indexOf('?')
  if (start < 0) return undefined
  const end = url.indexOf('#', start)
  const found: string[] = []
  for (const pair of url.slice(start + 1, end < 0 ? undefined : end).split('&')) {
    const eq = pair.indexOf('=')
    if ((eq < 0 ? pair : pair.slice(0, eq)) !== 'project_id') continue
    const raw = eq < 0 ? '' : pair.slice(eq + 1).replace(/\+/g, ' ')
    try {
      found.push(decodeURIComponent(raw))
    } catch {
      found.push(raw)
    }
  }
  const loc = ['query', 'project_id']
  if (found.length > 1) throw new KeywardError(ErrorType.valueError, 'Give project_id at most once.', loc)
  if (found[0] === '') throw new KeywardError(ErrorType.stringTooShort, 'project_id must not be empty.', loc)
  return found[0]
}

/**
 * @internal `GET /api/v1/audit?cursor&limit&project_id`: the calling developer's audit rows,
 * newest first (of one of their projects with `project_id`; 404 for a project that is not
 * theirs), and the cursor of the next page.
 */
export async function auditPage(keyward: Keyward, request: KeywardRequest, auth: DeveloperAuth) {
  const { limit, after } = readPageQuery(request)
  if (after && !SEQ.test(after.id)) throw invalidCursor('it does not hold a position')
  const projectId = projectParameter(request.url)
  if (projectId !== undefined && (await keyward.projectOwner(projectId)) !== auth.developerId) {
    throw new KeywardError(ErrorType.notFound, `Project ${echoValue(projectId)} was not found.`, [
      'query',
      'project_id',
    ])
  }
  const page = await keyward.listAudit(auth.developerId, {
    limit,
    ...(after ? { beforeSeq: Number(after.id) } : {}),
    ...(projectId === undefined ? {} : { projectId }),
  })
  const last = page.records.at(-1)
  return {
    entries: page.records.map(auditRecordToJson),
    next_cursor:
      page.next !== null && last ? encodeCursor({ createdAt: last.at, id: String(last.seq) }) : null,
  }
}
