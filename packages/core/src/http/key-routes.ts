import type { AuditContext } from '../audit/types.js'
import { checkCreditChange } from '../credits/checks.js'
import type { CreditRefill } from '../credits/types.js'
import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import type { KeyKind } from '../key/format.js'
import {
  ChangeCreditsBodySchema,
  CreateApiKeyBodySchema,
  CreateKeyBodySchema,
  CreateProjectBodySchema,
  NoFieldsBodySchema,
  RollKeyBodySchema,
  SetKeyExpiryBodySchema,
  UpdateApiKeyBodySchema,
} from '../openapi/schemas.js'
import { checkBody } from '../openapi/validate.js'
import type { KeyPolicies } from '../policy/policies.js'
import type { SecretScanningOptions } from '../secret-scanning/options.js'
import { createSecretScanningRoute } from '../secret-scanning/route.js'
import type { Keyward } from '../service/keyward.js'
import { readExpiryFields } from '../service/lifecycle.js'
import type { IssuedKey } from '../service/mint.js'
import type { DeveloperAuth } from '../service/requirements.js'
import type { KeyOwner, KeyRecord } from '../store/types.js'
import type { WebhookEndpointsOptions } from '../webhooks/endpoints.js'
import { auditContext } from './audit-context.js'
import { AUDIT_QUERY, auditPage } from './audit-route.js'
import { DEFAULT_BODY_LIMIT, readJsonObjectBody } from './body.js'
import type { PagePosition } from './cursor.js'
import { nextCursor, respond, guardedRoute as route, UUID } from './guarded-route.js'
import { checkProjectOwner, developerGuard } from './guards.js'
import { identityOfBody, identityRoutes, noSuchIdentity } from './identity-routes.js'
import { KEY_FILTER_QUERY, readKeyFilterQuery } from './key-filter-query.js'
import { PAGE_QUERY, readPageQuery } from './page-query.js'
import { roleRoutes } from './role-routes.js'
import { issuedKeyToJson, keyToJson, type ProjectRecord, projectToJson, rolledKeyToJson } from './shapes.js'
import type { Guard, KeyRoute, KeywardRequest } from './types.js'
import { readUsageQuery, USAGE_QUERY, usageToJson } from './usage-query.js'
import { createVerifyRoute, type VerifyRouteOptions } from './verify-route.js'
import { webhookRoutes } from './webhook-routes.js'

/** What the host's `createProject` receives. */
export interface CreateProjectInput {
  /** The developer creating the project, its owner. */
  readonly developerId: string
  /** The project's name, already checked (1 to 100 characters). */
  readonly name: string
  /**
   * Who creates it, from where, in which request. The audit log's `project.created` row is
   * appended with the default key's, in your transaction when you call `issueDefaultKey` there.
   */
  readonly audit: AuditContext
  /**
   * Issues the project's default API key, named `default`, with `keyward` (default: the
   * service of the routes). Call it inside your transaction, with a service over the
   * transaction's store, to create both atomically; if you do not call it, the routes do,
   * once your callback has returned the project.
   */
  issueDefaultKey(projectId: string, keyward?: Keyward): Promise<IssuedKey>
}

/** The host's project creation: stores the project and returns it. */
export type CreateProject = (input: CreateProjectInput) => Promise<ProjectRecord> | ProjectRecord

/** What the host's `listProjects` receives: whose projects, how many, from where. */
export interface ListProjectsInput {
  /** The calling developer: list only the projects it owns. */
  readonly developerId: string
  /** How many projects at most, already checked (1 to 200; 100 when the request did not say). */
  readonly limit: number
  /**
   * Start after this project, newest first (`created_at`, then `id`, descending), read from the
   * request's cursor; absent for the first page. `createdAt` may carry microseconds.
   */
  readonly after?: PagePosition
}

/** One page of projects, as the host's `listProjects` returns it. */
export interface ProjectPage {
  /** At most `limit` projects, newest first. */
  readonly projects: readonly ProjectRecord[]
  /**
   * Where the next page starts: the position of the last project (its `createdAt` to the
   * precision the database keeps, e.g. microseconds as an RFC 3339 string), or `null` on the
   * last page. The routes turn it into the answer's opaque `next_cursor`.
   */
  readonly next: { readonly createdAt: Date | string; readonly id: string } | null
}

/**
 * The host's listing of a developer's projects, a page at a time: a keyset query on
 * `(created_at, id)`, newest first.
 *
 * @example
 * ```ts
 * const listProjects: ListProjects = async ({ developerId, limit, after }) => {
 *   const rows = await db.projectsOf(developerId, after, limit + 1) // one more tells if a page follows
 *   const projects = rows.slice(0, limit)
 *   return { projects, next: rows.length > limit ? projects.at(-1)! : null }
 * }
 * ```
 */
export type ListProjects = (input: ListProjectsInput) => Promise<ProjectPage> | ProjectPage

/** Options of {@link createKeyRoutes}. */
export interface KeyRoutesOptions {
  /** Creates a project; `POST /api/v1/projects` is mounted only when it is given. */
  readonly createProject?: CreateProject
  /** Lists the calling developer's projects; `GET /api/v1/projects` is mounted only when it is given. */
  readonly listProjects?: ListProjects
  /** The largest body read, in bytes. Default `DEFAULT_BODY_LIMIT` (16 KiB). */
  readonly bodyLimit?: number
  /**
   * Mounts `POST /api/v1/secret-scanning/github`, the endpoint of GitHub's secret-scanning
   * partner program, which revokes leaked keys (see `createSecretScanningRoute`). Pass `{}`
   * for the defaults; without it, the endpoint is not mounted.
   */
  readonly secretScanning?: SecretScanningOptions
  /**
   * `POST /api/v1/keys/verify`, verification as a service for programs that cannot run Keyward
   * in process: mounted by default, for developer keys (keys of their own projects); give
   * `serviceTokens` to let a service credential verify keys of any project, or `false` to leave
   * the endpoint out.
   */
  readonly verify?: VerifyRouteOptions | false
  /**
   * Mounts the webhook endpoints under `/api/v1/webhooks/endpoints` (when the store keeps
   * webhooks): give `checkAddress` (`checkWebhookAddress` of `@keyward/webhooks` on Node) so that
   * a URL whose host resolves to an internal address is refused. Without it, not mounted.
   */
  readonly webhooks?: WebhookEndpointsOptions
}

// A key listing's query: a page, and what it keeps.
const KEY_LIST_QUERY = [...PAGE_QUERY, ...KEY_FILTER_QUERY]

function checkOptions(keyward: Keyward, options: KeyRoutesOptions): void {
  if (typeof keyward?.authenticate !== 'function') {
    throw new TypeError('createKeyRoutes: the first argument must be a Keyward service (createKeyward).')
  }
  for (const name of ['createProject', 'listProjects'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') {
      throw new TypeError(`createKeyRoutes: option \`${name}\` must be a function.`)
    }
  }
  const limit = options.bodyLimit
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) {
    throw new TypeError(
      `createKeyRoutes: option \`bodyLimit\` must be a positive integer, got ${String(limit)}.`,
    )
  }
}

/**
 * The key-management endpoints, framework-neutral: create, list (a page at a time, newest
 * first), deactivate, re-activate, roll and set the expiry of developer keys and project API
 * keys, verify an API key for another program (`POST /api/v1/keys/verify`), and (with
 * `createProject`, `listProjects`) create a project with its default key and list the caller's
 * projects.
 * Project-scoped endpoints need the owner's developer key, so the service needs `projectOwner`.
 *
 * @example
 * ```ts
 * for (const route of createKeyRoutes(keyward, { createProject })) {
 *   router.on(route.method, route.path, async (req) => send(await route.handle(toKeywardRequest(req))))
 * }
 * ```
 */
export function createKeyRoutes(keyward: Keyward, options: KeyRoutesOptions = {}): readonly KeyRoute[] {
  checkOptions(keyward, options)
  checkProjectOwner(keyward, "createKeyRoutes (the project API-key routes check the project's owner)")
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  const developer = developerGuard(keyward)
  const owner = developerGuard(keyward, { projectParam: 'project_id' })

  const body = async (request: KeywardRequest) => (await readJsonObjectBody(request, { limit }))?.value

  // A creation body: a name and an expiry, all optional; an API key's policies too.
  async function newKey(request: KeywardRequest, kind: KeyKind) {
    if (kind === 'developer') {
      const value = checkBody(CreateKeyBodySchema, await body(request))
      return { name: value.name ?? null, ...readExpiryFields(value) }
    }
    const value = checkBody(CreateApiKeyBodySchema, await body(request))
    return {
      name: value.name ?? null,
      ...readExpiryFields(value),
      ...policiesOf(value),
      ...(value.remaining === undefined ? {} : { remaining: value.remaining }),
      // Checked by the service (a monthly rule's `day` defaults to 1 there).
      ...(value.refill === undefined ? {} : { refill: value.refill as CreditRefill | null }),
      // The identity it joins, checked by the service (an external id's is created on first use).
      ...(value.identity_id === undefined ? {} : { identityId: value.identity_id }),
      ...(value.external_id === undefined ? {} : { externalId: value.external_id }),
    }
  }

  // The policies a body names (a field left out stays undefined: unchanged on an update).
  const policiesOf = (value: {
    ip_allowlist?: unknown
    permissions?: unknown
    metadata?: unknown
    ratelimits?: unknown
    roles?: unknown
    credits_low_at?: unknown
  }) =>
    ({
      ...(value.ip_allowlist !== undefined ? { ipAllowlist: value.ip_allowlist } : {}),
      ...(value.permissions !== undefined ? { permissions: value.permissions } : {}),
      ...(value.metadata !== undefined ? { metadata: value.metadata } : {}),
      ...(value.ratelimits !== undefined ? { ratelimits: value.ratelimits } : {}),
      ...(value.roles !== undefined ? { roles: value.roles } : {}),
      // Checked by the service, against the key's credits.
      ...(value.credits_low_at !== undefined ? { creditsLowAt: value.credits_low_at } : {}),
    }) as KeyPolicies

  // Keys as listings show them, with the names of the roles they hold (one read for a page).
  const listedAll = async (records: readonly KeyRecord[]) =>
    (await keyward.withRoleNames(records)).map((record) => keyToJson(record, keyward.isRotationDue(record)))
  const listed = async (record: KeyRecord) => (await listedAll([record]))[0]!
  const issued = async <T extends IssuedKey>(key: T): Promise<T> => ({
    ...key,
    record: (await keyward.withRoleNames([key.record]))[0]!,
  })
  const notFound = () => new KeywardError(ErrorType.notFound, 'Key not found.', ['path', 'key_id'])

  // The key named by the path, if it is one of the caller's (of this kind and owner).
  async function ownKey(request: KeywardRequest, kind: KeyKind, ownerId: string): Promise<KeyRecord> {
    const keyId = request.params.key_id ?? ''
    const record = UUID.test(keyId) ? await keyward.findKey(keyId) : null
    if (record === null || record.ownerType !== kind || record.ownerId !== ownerId) throw notFound()
    return record
  }

  // Who changes a key, from where: the audit rows of the write carry it.
  type Caller = { readonly ownerId: string; readonly audit: AuditContext }

  async function deactivate(request: KeywardRequest, kind: KeyKind, { ownerId, audit }: Caller) {
    const record = await ownKey(request, kind, ownerId)
    const updated = record.active ? await keyward.deactivateKey(record.id, audit) : record
    if (updated === null) throw notFound()
    return respond(200, await listed(updated))
  }

  async function activate(request: KeywardRequest, kind: KeyKind, { ownerId, audit }: Caller) {
    checkBody(NoFieldsBodySchema, await body(request))
    const updated = await keyward.activateKey((await ownKey(request, kind, ownerId)).id, audit)
    if (updated === null) throw notFound()
    return respond(200, await listed(updated))
  }

  // An update: a new expiry (for any key), new policies and a new identity (for an API key), in
  // that order. The identity and the roles' names are checked before anything is written.
  async function update(request: KeywardRequest, kind: KeyKind, { ownerId, audit }: Caller) {
    const record = await ownKey(request, kind, ownerId)
    const value = checkBody(
      kind === 'developer' ? SetKeyExpiryBodySchema : UpdateApiKeyBodySchema,
      await body(request),
    )
    const policies = kind === 'project' ? policiesOf(value as Record<string, unknown>) : {}
    const identityId =
      kind === 'project'
        ? await identityOfBody(keyward, value as { identity_id?: string | null }, ownerId)
        : undefined
    if (Array.isArray(policies.roles)) await keyward.findRolesByName(ownerId, policies.roles)
    const hasExpiry = value.expires_at !== undefined || value.expires_in_days !== undefined
    let updated: KeyRecord | null = record
    if (hasExpiry || (Object.keys(policies).length === 0 && identityId === undefined)) {
      const change = { ...readExpiryFields(value), ...(value.expires_at === null ? { expiresAt: null } : {}) }
      updated = await keyward.setKeyExpiry(record.id, change, audit)
    }
    if (updated !== null && Object.keys(policies).length > 0) {
      updated = await keyward.setKeyPolicies(record.id, policies, audit)
    }
    if (updated !== null && identityId !== undefined && identityId !== (updated.identityId ?? null)) {
      const joined = await keyward.setKeyIdentity(record.id, identityId, audit)
      // `null`: the identity was deleted since it was checked.
      if (joined === null) throw noSuchIdentity()
      updated = joined
    }
    if (updated === null) throw notFound()
    return respond(200, await listed(updated))
  }

  // One atomic change of an API key's credits: the body checked (422 names the field), then the
  // service's change (a subtraction below zero is 422 too, and changes nothing) with its audit row.
  async function changeCredits(request: KeywardRequest, auth: DeveloperAuth) {
    const record = await ownKey(request, 'project', auth.projectId!)
    const value = checkBody(ChangeCreditsBodySchema, await body(request))
    const change = checkCreditChange(value)
    const updated = await keyward.changeCredits(record.id, change, auditContext(keyward, request, auth))
    if (updated === null) throw notFound()
    return respond(200, await listed(updated))
  }

  // A page of the owner's keys, newest first (those `q` and `status` keep), and the cursor of the next.
  async function listPage(request: KeywardRequest, owner: KeyOwner) {
    const { limit, after } = readPageQuery(request)
    const page = await keyward.listKeysPage(owner, {
      limit,
      after: after ?? null,
      ...readKeyFilterQuery(request),
    })
    return respond(200, { keys: await listedAll(page.records), next_cursor: nextCursor(page.next) })
  }

  // An owner's usage by bucket, key and outcome; a `key_id` must name one of the owner's keys.
  async function usage(request: KeywardRequest, owner: KeyOwner) {
    const query = readUsageQuery(request, keyward.usageRetention!, new Date())
    if (query.keyId !== undefined) {
      const record = await keyward.findKey(query.keyId)
      if (record === null || record.ownerType !== owner.type || record.ownerId !== owner.id) {
        throw new KeywardError(ErrorType.notFound, 'Key not found.', ['query', 'key_id'])
      }
    }
    return respond(200, usageToJson(query, await keyward.readUsage({ owner, ...query })))
  }

  async function roll(request: KeywardRequest, kind: KeyKind, { ownerId, audit }: Caller) {
    const record = await ownKey(request, kind, ownerId)
    const graceSeconds = checkBody(RollKeyBodySchema, await body(request)).grace_seconds
    const rolled = await keyward.rollKey(record.id, graceSeconds === undefined ? {} : { graceSeconds }, audit)
    if (rolled === null) throw notFound()
    return respond(201, rolledKeyToJson(await issued(rolled)))
  }

  // The routes on one key: read, deactivate, set its expiry, activate, roll.
  const keyRoutes = (
    base: string,
    guard: Guard<DeveloperAuth>,
    kind: KeyKind,
    ownerOf: (auth: DeveloperAuth) => string,
  ) => {
    const caller = (request: KeywardRequest, auth: DeveloperAuth): Caller => ({
      ownerId: ownerOf(auth),
      audit: auditContext(keyward, request, auth),
    })
    return [
      route('GET', `${base}/:key_id`, guard, async (request, auth) =>
        respond(200, await listed(await ownKey(request, kind, ownerOf(auth)))),
      ),
      route('DELETE', `${base}/:key_id`, guard, (request, auth) =>
        deactivate(request, kind, caller(request, auth)),
      ),
      route('PATCH', `${base}/:key_id`, guard, (request, auth) =>
        update(request, kind, caller(request, auth)),
      ),
      route('POST', `${base}/:key_id/activate`, guard, (request, auth) =>
        activate(request, kind, caller(request, auth)),
      ),
      route('POST', `${base}/:key_id/roll`, guard, (request, auth) =>
        roll(request, kind, caller(request, auth)),
      ),
    ]
  }

  const routes: KeyRoute[] = [
    route('POST', '/api/v1/auth/developer-keys', developer, async (request, auth) => {
      const options = await newKey(request, 'developer')
      const audit = auditContext(keyward, request, auth)
      return respond(201, issuedKeyToJson(await keyward.issueDeveloperKey(auth.developerId, options, audit)))
    }),
    route(
      'GET',
      '/api/v1/auth/developer-keys',
      developer,
      (request, auth) => listPage(request, { type: 'developer', id: auth.developerId }),
      KEY_LIST_QUERY,
    ),
    ...keyRoutes('/api/v1/auth/developer-keys', developer, 'developer', (auth) => auth.developerId),
    route('POST', '/api/v1/projects/:project_id/api-keys', owner, async (request, auth) => {
      const options = await newKey(request, 'project')
      const audit = auditContext(keyward, request, auth)
      return respond(
        201,
        issuedKeyToJson(await issued(await keyward.issueProjectKey(auth.projectId!, options, audit))),
      )
    }),
    route(
      'GET',
      '/api/v1/projects/:project_id/api-keys',
      owner,
      (request, auth) => listPage(request, { type: 'project', id: auth.projectId! }),
      KEY_LIST_QUERY,
    ),
    ...keyRoutes('/api/v1/projects/:project_id/api-keys', owner, 'project', (auth) => auth.projectId!),
    route('POST', '/api/v1/projects/:project_id/api-keys/:key_id/credits', owner, changeCredits),
    // Mounted when the store keeps identities.
    ...(keyward.store.identities ? identityRoutes(keyward, owner, body, listedAll) : []),
    // Mounted when the store keeps roles.
    ...(keyward.store.roles ? roleRoutes(keyward, owner, body) : []),
    ...(options.webhooks && keyward.store.webhooks
      ? webhookRoutes(keyward, developer, body, options.webhooks)
      : []),
  ]
  if (options.verify !== false) routes.push(createVerifyRoute(keyward, options.verify ?? {}, limit))
  // Mounted when the service counts usage and its store can read it back.
  if (keyward.usageRetention && keyward.store.readUsage) {
    routes.push(
      route(
        'GET',
        '/api/v1/auth/usage',
        developer,
        (request, auth) => usage(request, { type: 'developer', id: auth.developerId }),
        USAGE_QUERY,
      ),
      route(
        'GET',
        '/api/v1/projects/:project_id/usage',
        owner,
        (request, auth) => usage(request, { type: 'project', id: auth.projectId! }),
        USAGE_QUERY,
      ),
    )
  }
  if (keyward.auditing) {
    routes.push(
      route(
        'GET',
        '/api/v1/audit',
        developer,
        async (request, auth) => respond(200, await auditPage(keyward, request, auth)),
        AUDIT_QUERY,
      ),
    )
  }
  if (options.secretScanning !== undefined) {
    routes.push(createSecretScanningRoute(keyward, options.secretScanning))
  }
  const { createProject, listProjects } = options
  if (createProject) {
    routes.push(
      route('POST', '/api/v1/projects', developer, async (request, auth) => {
        const { name } = checkBody(
          CreateProjectBodySchema,
          (await readJsonObjectBody(request, { limit }))?.value,
        )
        let issued: IssuedKey | undefined
        // The default key's rows begin with the project's creation, in the host's transaction.
        const created = (projectId: string) => ({
          action: 'project.created' as const,
          targetType: 'project' as const,
          targetId: projectId,
          developerId: auth.developerId,
          projectId,
          after: { name },
        })
        const audit = auditContext(keyward, request, auth)
        const issueDefaultKey = async (projectId: string, service: Keyward = keyward) => {
          if (issued) throw new TypeError('createProject: issueDefaultKey was called twice.')
          issued = await service.issueProjectKey(
            projectId,
            { name: 'default' },
            { ...audit, with: [created(projectId)] },
          )
          return issued
        }
        const project = await createProject({ developerId: auth.developerId, name, audit, issueDefaultKey })
        if (typeof project?.id !== 'string' || project.id === '') {
          throw new TypeError('createProject must return the project, with its `id`.')
        }
        const apiKey = issued ?? (await issueDefaultKey(project.id))
        if (apiKey.record.ownerId !== project.id) {
          throw new TypeError('createProject: the default key was issued for another project.')
        }
        return respond(201, { project: projectToJson(project), api_key: issuedKeyToJson(apiKey) })
      }),
    )
  }
  if (listProjects) {
    routes.push(
      route(
        'GET',
        '/api/v1/projects',
        developer,
        async (request, auth) => {
          const { limit, after } = readPageQuery(request)
          const page = await listProjects({
            developerId: auth.developerId,
            limit,
            ...(after ? { after } : {}),
          })
          if (!Array.isArray(page?.projects) || page.projects.length > limit || page.next === undefined) {
            throw new TypeError('listProjects must return { projects, next }, at most `limit` projects.')
          }
          return respond(200, {
            projects: page.projects.map(projectToJson),
            next_cursor: nextCursor(page.next),
          })
        },
        PAGE_QUERY,
      ),
    )
  }
  return routes
}
