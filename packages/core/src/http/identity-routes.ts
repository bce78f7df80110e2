import type { AuditContext } from '../audit/types.js'
import { checkCreditChange } from '../credits/checks.js'
import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { checkExternalId, checkIdentityChange, checkNewIdentity } from '../identities/checks.js'
import { type IdentityRecord, MAX_EXTERNAL_ID_LENGTH } from '../identities/model.js'
import { ChangeCreditsBodySchema } from '../openapi/schemas.js'
import { checkBody } from '../openapi/validate.js'
import type { Keyward } from '../service/keyward.js'
import type { DeveloperAuth } from '../service/requirements.js'
import type { KeyRecord } from '../store/types.js'
import { auditContext } from './audit-context.js'
import { guardedRoute, nextCursor, respond, UUID } from './guarded-route.js'
import { checkSearch } from './key-filter-query.js'
import { PAGE_QUERY, readPageQuery } from './page-query.js'
import { flagValue, queryParameters, singleValue } from './query-parameters.js'
import { identityToJson } from './shapes.js'
import type { Guard, KeyRoute, KeywardRequest } from './types.js'
import { readUsageQuery, USAGE_QUERY, usageToJson } from './usage-query.js'

const BASE = '/api/v1/projects/:project_id/identities'

/** @internal The path of the change of an identity's credit pool. */
export const IDENTITY_CREDITS_PATH = `${BASE}/:identity_id/credits`

const notFound = () => new KeywardError(ErrorType.notFound, 'Identity not found.', ['path', 'identity_id'])

/**
 * @internal The identity a key's body names by `identity_id`: `undefined` when it names none,
 * `null` when it takes the key out of its identity, else the id of an identity of `projectId`
 * (422 `value_error` at `["body", "identity_id"]` for any other, as at the key's creation).
 */
export async function identityOfBody(
  keyward: Keyward,
  value: { readonly identity_id?: string | null },
  projectId: string,
): Promise<string | null | undefined> {
  const id = value.identity_id
  if (id === undefined || id === null) return id
  const identity = UUID.test(id) ? await keyward.findIdentity(id) : null
  if (identity === null || identity.projectId !== projectId) throw noSuchIdentity()
  return identity.id
}

/** @internal The refusal of an `identity_id` that names no identity of the key's project. */
export const noSuchIdentity = () =>
  new KeywardError(ErrorType.valueError, 'The project has no such identity.', ['body', 'identity_id'])

/**
 * @internal The identities' endpoints under `/api/v1/projects/{project_id}/identities`, guarded
 * by `owner` (the developer key of the project's owner): create, list (a page, or the one of an
 * `external_id`), read, change, delete (with `revoke_keys`), its credit pool, its keys and its usage. An identity
 * of another project is 404, as an unknown one.
 */
export function identityRoutes(
  keyward: Keyward,
  owner: Guard<DeveloperAuth>,
  body: (request: KeywardRequest) => Promise<Readonly<Record<string, unknown>> | undefined>,
  listed: (records: readonly KeyRecord[]) => Promise<unknown[]>,
): KeyRoute[] {
  type Caller = { readonly projectId: string; readonly audit: AuditContext }
  const caller = (request: KeywardRequest, auth: DeveloperAuth): Caller => ({
    projectId: auth.projectId!,
    audit: auditContext(keyward, request, auth),
  })

  // The identity named by the path, if it is one of the project's.
  async function ownIdentity(request: KeywardRequest, projectId: string): Promise<IdentityRecord> {
    const id = request.params.identity_id ?? ''
    const identity = UUID.test(id) ? await keyward.findIdentity(id) : null
    if (identity === null || identity.projectId !== projectId) throw notFound()
    return identity
  }

  // A route on one identity of the caller's project.
  const onIdentity = (
    method: KeyRoute['method'],
    path: string,
    run: (identity: IdentityRecord, request: KeywardRequest, caller: Caller) => Promise<unknown>,
    query: readonly string[] = [],
  ) =>
    guardedRoute(
      method,
      `${BASE}/:identity_id${path}`,
      owner,
      async (request, auth) => {
        const { projectId, audit } = caller(request, auth)
        const identity = await ownIdentity(request, projectId)
        return respond(200, await run(identity, request, { projectId, audit }))
      },
      query,
    )

  // Identities as the routes show them, with the names of the roles they hold (one read for all).
  const shown = async (identities: readonly IdentityRecord[]) =>
    (await keyward.withRoleNames(identities)).map(identityToJson)
  const showOne = async (identity: IdentityRecord) => (await shown([identity]))[0]!

  async function list(request: KeywardRequest, projectId: string) {
    const found = queryParameters(request.url, ['external_id', 'q'] as const)
    const externalId = singleValue(found, 'external_id')
    const q = checkSearch(singleValue(found, 'q'), MAX_EXTERNAL_ID_LENGTH)
    const { limit, after } = readPageQuery(request)
    // The lookup by the host's id: a page of that identity alone, or an empty one.
    if (externalId !== undefined) {
      checkExternalId(externalId, ['query', 'external_id'])
      const found = await keyward.findIdentityByExternalId(projectId, externalId)
      return { identities: await shown(found ? [found] : []), next_cursor: null }
    }
    const page = await keyward.listIdentitiesPage(projectId, {
      limit,
      ...(after ? { after } : {}),
      ...(q ? { q } : {}),
    })
    return { identities: await shown(page.records), next_cursor: nextCursor(page.next) }
  }

  const routes: KeyRoute[] = [
    guardedRoute('POST', BASE, owner, async (request, auth) => {
      const { projectId, audit } = caller(request, auth)
      const given = checkNewIdentity((await body(request)) ?? {})
      return respond(201, await showOne(await keyward.createIdentity(projectId, given, audit)))
    }),
    guardedRoute(
      'GET',
      BASE,
      owner,
      async (request, auth) => respond(200, await list(request, auth.projectId!)),
      [...PAGE_QUERY, 'external_id', 'q'],
    ),
    onIdentity('GET', '', showOne),
    onIdentity('PATCH', '', async (identity, request, { audit }) => {
      const change = checkIdentityChange((await body(request)) ?? {})
      // Nothing to change: nothing is written, and no audit row says otherwise.
      if (Object.keys(change).length === 0) return showOne(identity)
      const updated = await keyward.updateIdentity(identity.id, change, audit)
      if (updated === null) throw notFound()
      return showOne(updated)
    }),
    onIdentity(
      'DELETE',
      '',
      async (identity, request, { audit }) => {
        // `?revoke_keys=true|false`: whether the deletion revokes the identity's keys (default false).
        const revokeKeys = flagValue(request, 'revoke_keys')
        const deleted = await keyward.deleteIdentity(identity.id, { revokeKeys }, audit)
        if (deleted === null) throw notFound()
        return { id: deleted.identity.id, deleted: true, revoked_keys: deleted.revoked.map((key) => key.id) }
      },
      ['revoke_keys'],
    ),
    onIdentity(
      'GET',
      '/keys',
      async (identity, request) => {
        const { limit, after } = readPageQuery(request)
        const page = await keyward.listIdentityKeys(identity.id, after ? { limit, after } : { limit })
        return {
          keys: await listed(page.records),
          next_cursor: nextCursor(page.next),
        }
      },
      PAGE_QUERY,
    ),
    // One atomic change of the pool, with the body of a key's credits, audited as
    // `identity.credits_changed`; the identity as it is after.
    onIdentity('POST', '/credits', async (identity, request, { audit }) => {
      const change = checkCreditChange(checkBody(ChangeCreditsBodySchema, await body(request)))
      const updated = await keyward.changeIdentityCredits(identity.id, change, audit)
      if (updated === null) throw notFound()
      return showOne(updated)
    }),
  ]
  // Mounted when the service counts usage and its store can read it back, as a project's usage.
  if (keyward.usageRetention && keyward.store.readUsage) {
    routes.push(
      onIdentity(
        'GET',
        '/usage',
        async (identity, request) => {
          const query = readUsageQuery(request, keyward.usageRetention!, new Date())
          if (query.keyId !== undefined) {
            const key = await keyward.findKey(query.keyId)
            if (key?.identityId !== identity.id) {
              throw new KeywardError(ErrorType.notFound, 'Key not found.', ['query', 'key_id'])
            }
          }
          const rows = await keyward.readIdentityUsage(identity.id, query)
          if (rows === null) throw notFound()
          return usageToJson(query, rows)
        },
        USAGE_QUERY,
      ),
    )
  }
  return routes
}
