import { isKeywardError, type KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { sha256Hex } from '../hash/digest.js'
import { KEY_PATTERN, KEY_PREFIX_LENGTH } from '../key/constants.js'
import { KEY_HEADER, type KeyKind } from '../key/format.js'
import type { KeyRecord } from '../store/types.js'
import { SPAN_INTERNAL, spanFailed, spanTime } from '../telemetry/spans.js'
import type { KeywardTelemetry, TelemetrySpan, TelemetryTracer } from '../telemetry/types.js'
import type { AuthFailureReason } from './events.js'
import type { Lookup } from './lookup.js'
import type { AuthContext, Credentials, KeyRef, Requirement } from './requirements.js'
import type { KeywardVerification } from './verification.js'

/**
 * @internal Told what a lookup of a presented key found, for the span of its verification:
 * `origin` is the verification's credentials, `record` `undefined` when the store failed,
 * `storeMs` the time the store took, or -1 for the cache.
 */
export type LookupObserver = (
  origin: object | undefined,
  kind: KeyKind,
  record: KeyRecord | null | undefined,
  storeMs: number,
) => void

/** What the lookups of one verification found. */
interface Note {
  lookups: number
  cached: number
  storeMs: number
  developer: KeyRecord | null | undefined
  project: KeyRecord | null | undefined
}

/** @internal The verification methods that open a span, and the observer of their lookups. */
export interface VerificationSpans {
  readonly observe: LookupObserver
  keyNow(plain: KeywardVerification['keyNow']): KeywardVerification['keyNow']
  authenticate(plain: Authenticate): Authenticate
  verifyApiKey(plain: KeywardVerification['verifyApiKey']): KeywardVerification['verifyApiKey']
}

type Authenticate = (credentials: Credentials, requirement: Requirement) => Promise<unknown>

/** The name of every verification's span. */
export const VERIFY_SPAN = 'keyward.verify'

// The precise reason of each refusal whose error type tells it; `key_invalid` needs the record.
const REASONS: Readonly<Partial<Record<string, AuthFailureReason>>> = {
  [ErrorType.keyMissing]: 'missing',
  [ErrorType.keyMalformed]: 'malformed',
  [ErrorType.keyLegacyPrefix]: 'legacy_prefix',
  [ErrorType.keyWrongType]: 'wrong_type',
  [ErrorType.projectMismatch]: 'project_mismatch',
  [ErrorType.notProjectOwner]: 'not_project_owner',
  [ErrorType.notFound]: 'project_not_found',
  [ErrorType.ipNotAllowed]: 'ip_not_allowed',
  [ErrorType.permissionDenied]: 'permission_denied',
  [ErrorType.storeUnavailable]: 'store_unavailable',
}

const fresh = (): Note => ({ lookups: 0, cached: 0, storeMs: 0, developer: undefined, project: undefined })

/**
 * @internal The spans of verifications (`keyward.verify`): one per verification, with its scope,
 * outcome (`accepted` or the precise reason of the refusal), the key's prefix and id, the
 * project (and developer), whether the cache answered, and the time the store took. Never a key,
 * a hash, metadata, or the client's address unless `recordClientAddress`.
 */
export function verificationSpans(
  tracer: TelemetryTracer,
  telemetry: KeywardTelemetry,
  lookup: Pick<Lookup, 'cache' | 'stateProblem'>,
): VerificationSpans {
  const withAddress = telemetry.recordClientAddress === true
  const notes = new WeakMap<object, Note>()
  const stateProblem = (record: KeyRecord | null, kind: KeyKind) => lookup.stateProblem(record, kind)

  const observe: LookupObserver = (origin, kind, record, storeMs) => {
    const note = origin === undefined ? undefined : notes.get(origin)
    if (!note) return
    note.lookups++
    if (storeMs < 0) note.cached++
    else note.storeMs += storeMs
    note[kind] = record
  }

  function keyAttributes(span: TelemetrySpan, key: KeyRef, prefix = 'keyward.key'): void {
    span.setAttribute(`${prefix}.id`, key.id)
    span.setAttribute(`${prefix}.prefix`, key.keyPrefix)
  }

  function accepted(span: TelemetrySpan, auth: AuthContext): void {
    span.setAttribute('keyward.verification.outcome', 'accepted')
    if (auth.scope === 'developer') keyAttributes(span, auth.developerKey)
    else keyAttributes(span, auth.projectKey)
    if (auth.scope === 'elevated') keyAttributes(span, auth.developerKey, 'keyward.developer_key')
    if (auth.scope !== 'project') span.setAttribute('keyward.developer.id', auth.developerId)
    if (auth.projectId !== undefined) span.setAttribute('keyward.project.id', auth.projectId)
  }

  // A refusal: its precise reason, and what the looked-up record of the refused key tells.
  function refused(
    span: TelemetrySpan,
    error: KeywardError,
    note: Note,
    main: KeyKind,
    presented: (kind: KeyKind) => unknown,
    projectId: string | undefined,
  ): void {
    const header = error.loc[0] === 'header' ? error.loc[1] : undefined
    const kind =
      header === KEY_HEADER.developer ? 'developer' : header === KEY_HEADER.project ? 'project' : main
    const record = note[kind]
    let reason = REASONS[error.type] ?? error.type
    // One answer for unknown, inactive and expired keys, and for another developer's key.
    if (error.type === ErrorType.keyInvalid)
      reason = stateProblem(record ?? null, kind) ?? 'not_project_owner'
    span.setAttribute('keyward.verification.outcome', reason)
    if (reason === 'store_unavailable') spanFailed(span, error)
    if (record) {
      keyAttributes(span, record)
      span.setAttribute(
        record.ownerType === 'project' ? 'keyward.project.id' : 'keyward.developer.id',
        record.ownerId,
      )
    } else {
      // A well-formed key's display prefix, as every refusal's report names it; nothing of a malformed value.
      const value = presented(kind)
      if (typeof value === 'string' && KEY_PATTERN.test(value)) {
        span.setAttribute('keyward.key.prefix', value.slice(0, KEY_PREFIX_LENGTH))
      }
    }
    if (projectId !== undefined && record?.ownerType !== 'project')
      span.setAttribute('keyward.project.id', projectId)
  }

  function finish(
    span: TelemetrySpan,
    scope: string,
    note: Note,
    result: unknown,
    presented: (kind: KeyKind) => unknown,
    projectId: string | undefined,
    address: string | undefined,
  ): void {
    span.setAttribute('keyward.verification.scope', scope)
    if (note.lookups > 0) {
      span.setAttribute('keyward.verification.cached', note.cached === note.lookups)
      // To the microsecond: the clock tells no more.
      if (note.cached < note.lookups) {
        span.setAttribute('keyward.verification.store_ms', Math.round(note.storeMs * 1000) / 1000)
      }
    }
    if (withAddress && address !== undefined) span.setAttribute('client.address', address)
    const main: KeyKind = scope === 'developer' ? 'developer' : 'project'
    if (isKeywardError(result)) refused(span, result, note, main, presented, projectId)
    else if (result instanceof Error) {
      span.setAttribute('keyward.verification.outcome', 'error')
      spanFailed(span, result)
    } else if ((result as { scope?: unknown }).scope !== undefined) accepted(span, result as AuthContext)
    else {
      const record = result as KeyRecord
      span.setAttribute('keyward.verification.outcome', 'accepted')
      keyAttributes(span, record)
      span.setAttribute('keyward.project.id', record.ownerId)
    }
  }

  function traced<C extends Credentials, T>(
    scope: string,
    projectId: string | undefined,
    credentials: C,
    run: (origin: C) => Promise<T>,
  ): Promise<T> {
    return tracer.startActiveSpan(VERIFY_SPAN, { kind: SPAN_INTERNAL }, (span) => {
      // Without an SDK, or sampled out: nothing to note, nothing to wait for.
      if (!span.isRecording()) {
        span.end()
        return run(credentials)
      }
      // A copy of its own is the key of this verification's note, even when calls share credentials.
      const origin = { ...credentials }
      const note = fresh()
      notes.set(origin, note)
      const presented = (kind: KeyKind) =>
        kind === 'developer' ? credentials.developerKey : credentials.projectKey
      const end = (result: unknown) => {
        finish(span, scope, note, result, presented, projectId, credentials.address)
        span.end()
      }
      return run(origin).then(
        (result) => {
          end(result)
          return result
        },
        (error: unknown) => {
          end(error)
          throw error
        },
      )
    })
  }

  return {
    observe,
    // The cache answered (else no span): a refusal's record is read from it again, at once, so
    // that the plain `keyNow` stays as it is, telling nothing to anyone.
    keyNow: (plain) => (kind, value, projectId, address, permissions, request) => {
      const startTime = spanTime()
      const answer = plain(kind, value, projectId, address, permissions, request)
      if (answer === undefined) return answer
      const span = tracer.startSpan(VERIFY_SPAN, { kind: SPAN_INTERNAL, startTime })
      if (!span.isRecording()) {
        span.end()
        return answer
      }
      const note = fresh()
      note.lookups = 1
      note.cached = 1
      if (isKeywardError(answer) && typeof value === 'string') {
        const digest = sha256Hex(value)
        if (typeof digest === 'string') note[kind] = lookup.cache?.peek(digest)
      }
      finish(span, kind, note, answer, () => value, projectId, address)
      span.end(spanTime())
      return answer
    },
    authenticate: (plain) => (credentials, requirement) =>
      traced(requirement?.scope ?? 'unknown', requirement?.projectId, credentials ?? {}, (origin) =>
        plain(origin, requirement),
      ),
    verifyApiKey: (plain) => (credentials, check) =>
      traced('project', check?.projectId, credentials ?? {}, (origin) => plain(origin, check)),
  }
}
