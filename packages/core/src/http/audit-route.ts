import { auditRecordToJson } from '../audit/chain.js'
import { type AuditFilter, auditFilterOf } from '../audit/filter.js'
import { AUDIT_ACTIONS, type AuditAction } from '../audit/types.js'
import { echoValue } from '../errors/echo.js'
import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import type { Keyward } from '../service/keyward.js'
import type { DeveloperAuth } from '../service/requirements.js'
import { encodeCursor, invalidCursor } from './cursor.js'
import { PAGE_QUERY, readPageQuery } from './page-query.js'
import {
  invalidQuery,
  type QueryValues,
  queryParameters,
  singleValue,
  timeValue,
} from './query-parameters.js'
import type { KeywardRequest } from './types.js'

// A cursor of the audit log names a row by its `seq`.
const SEQ = /^[1-9][0-9]{0,15}$/

/** @internal The query parameters the audit log reads: a page, and its project and filter. */
export const AUDIT_QUERY = [
  ...PAGE_QUERY,
  'project_id',
  'key_id',
  'identity_id',
  'action',
  'from',
  'to',
] as const
type AuditQueryName = (typeof AUDIT_QUERY)[number]
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

// The query's `project_id` (an empty one is refused) and its filter: `key_id` and `identity_id` (UUIDs), `action`
// (one of the log's), `from` and `to` (RFC 3339 times, `from` before `to`).
// A parameter that names a key or an identity: a UUID, compared in lower case.
function uuidValue(found: QueryValues<AuditQueryName>, name: 'key_id' | 'identity_id'): string | undefined {
  const value = singleValue(found, name)
  if (value !== undefined && !UUID.test(value)) {
    throw invalidQuery(ErrorType.uuidParsing, name, 'Input should be a valid UUID.')
  }
  return value?.toLowerCase()
}

function auditQuery(url: string): { projectId?: string; filter: AuditFilter } {
  const found = queryParameters(url, AUDIT_QUERY)
  if (found.project_id?.length === 1 && found.project_id[0] === '') {
    throw invalidQuery(ErrorType.stringTooShort, 'project_id', 'project_id must not be empty.')
  }
  const projectId = singleValue(found, 'project_id')
  const keyId = uuidValue(found, 'key_id')
  const identityId = uuidValue(found, 'identity_id')
  const action = singleValue(found, 'action')
  if (action !== undefined && !AUDIT_ACTIONS.includes(action as AuditAction)) {
    throw invalidQuery(ErrorType.valueError, 'action', `Input should be one of: ${AUDIT_ACTIONS.join(', ')}.`)
  }
  const from = timeValue(found, 'from')
  const to = timeValue(found, 'to')
  if (from && to && from.getTime() >= to.getTime()) {
    throw invalidQuery(ErrorType.valueError, 'from', 'from must be before to.')
  }
  const filter = auditFilterOf({
    ...(keyId === undefined ? {} : { keyId }),
    ...(identityId === undefined ? {} : { identityId }),
    ...(action === undefined ? {} : { action: action as AuditAction }),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  })
  return { ...(projectId === undefined ? {} : { projectId }), filter }
}

/**
 * @internal `GET /api/v1/audit?cursor&limit&project_id&key_id&identity_id&action&from&to`: the calling
 * developer's audit rows, newest first (of one of their projects with `project_id`; 404 for a
 * project that is not theirs; about one key or one identity, of one action, in a range of time), and the cursor
 * of the next page.
 */
export async function auditPage(keyward: Keyward, request: KeywardRequest, auth: DeveloperAuth) {
  const { limit, after } = readPageQuery(request)
  if (after && !SEQ.test(after.id)) throw invalidCursor('it does not hold a position')
  const { projectId, filter } = auditQuery(request.url)
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
    filter,
  })
  const last = page.records.at(-1)
  return {
    entries: page.records.map(auditRecordToJson),
    next_cursor:
      page.next !== null && last ? encodeCursor({ createdAt: last.at, id: String(last.seq) }) : null,
  }
}
