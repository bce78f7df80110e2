import {
  type CreateProject,
  createKeyward,
  hashKey,
  type Keyward,
  KeywardError,
  type KeywardEvent,
  type LegacyDeveloperKeyPolicy,
  type ListProjects,
  MemoryKeyStore,
  type OwnerKeyPolicies,
  type ProjectRecord,
  type ProtectionOptions,
  type VerificationCacheOptions,
} from '@keyward/core'

/** What every adapter under test serves: the same service, project callback and token verifier. */
export interface ConformanceApp {
  readonly keyward: Keyward
  readonly createProject: CreateProject
  /** Lists a developer's projects of the world, newest first (then the greater id first). */
  readonly listProjects: ListProjects
  readonly verifyToken: (token: string) => { projectId: string } | null
  /** The error that `GET /conformance/throws` throws from a route, for the adapter's error handler. */
  readonly failure: KeywardError
}

/** The clock of every world: responses carry the same `created_at` on every adapter. */
export const CONFORMANCE_NOW = new Date('2025-06-01T12:00:00.000Z')

/** The permissions every world declares; `GET /conformance/projects/:project_id/permitted` requires `reports:read`. */
export const CONFORMANCE_PERMISSIONS = ['reports:read', 'reports:write']

/**
 * The maximum lifetime of API keys, in days, in the worlds of the cases that ask for it
 * (`keyPolicies: { project: { maxLifetimeDays: 30 } }`, as the reference server's
 * `KEYWARD_MAX_API_KEY_LIFETIME_DAYS=30`).
 */
export const CONFORMANCE_MAX_LIFETIME_DAYS = 30

/** A valid bearer token of `proj-1` for the conformance verifier. */
export const CONFORMANCE_TOKEN = 'tok.proj-1_~+/=='

/** A store that can be taken down, to prove that an outage fails closed. */
class SwitchableStore extends MemoryKeyStore {
  down = false
  lookups = 0
  override async findKeyByHash(hash: string) {
    this.lookups++
    if (this.down) throw new Error('ECONNREFUSED 10.0.0.7:5432')
    return super.findKeyByHash(hash)
  }
}

/** One adapter's world: a fresh service over a memory store, fixed ids, and the keys issued for them. */
export interface ConformanceWorld {
  readonly app: ConformanceApp
  readonly keyward: Keyward
  readonly events: KeywardEvent[]
  readonly projects: Map<string, ProjectRecord>
  setStoreDown(down: boolean): void
  /** How many lookups by hash the store has answered. */
  lookups(): number
  /** Developer keys of dev-1 and dev-2, API keys of proj-1 (owned by dev-1) and proj-2 (dev-2). */
  readonly keys: { readonly d1: string; readonly d2: string; readonly p1: string; readonly p2: string }
  /** A deactivated API key of proj-1, and a legacy `dk_` developer key of dev-1. */
  readonly inactiveKey: string
  readonly legacyKey: string
}

/**
 * Builds a world. Every adapter gets its own, with the same ids, so error bodies match byte for
 * byte. With `protection`, its service throttles failed verifications and rate-limits keys; with
 * `cache`, it keeps a verification cache; with `keyPolicies`, its owner types have a maximum
 * lifetime (the world's own keys are issued under it).
 *
 * @example
 * ```ts
 * const { keyward, keys } = await createConformanceWorld('reject')
 * const auth = await keyward.authenticate({ projectKey: keys.p1 }, { scope: 'project', projectId: 'proj-1' })
 * ```
 */
export async function createConformanceWorld(
  legacy: LegacyDeveloperKeyPolicy,
  protection?: ProtectionOptions,
  cache?: VerificationCacheOptions,
  keyPolicies?: OwnerKeyPolicies,
): Promise<ConformanceWorld> {
  const store = new SwitchableStore()
  const events: KeywardEvent[] = []
  const projects = new Map<string, ProjectRecord>()
  const keyward = createKeyward({
    store,
    legacyDeveloperKeys: legacy,
    now: () => CONFORMANCE_NOW,
    projectOwner: (id) => projects.get(id)?.developerId ?? null,
    onEvent: (event) => events.push(event),
    permissions: CONFORMANCE_PERMISSIONS,
    ...(protection ? { protection } : {}),
    ...(cache ? { cache } : {}),
    ...(keyPolicies ? { keyPolicies } : {}),
  })
  for (const [id, developerId] of [
    ['proj-1', 'dev-1'],
    ['proj-2', 'dev-2'],
  ] as const) {
    projects.set(id, { id, name: id, developerId, createdAt: CONFORMANCE_NOW })
  }
  const issue = async (p: Promise<{ key: string }>) => (await p).key
  const keys = {
    d1: await issue(keyward.issueDeveloperKey('dev-1', { name: 'laptop' })),
    d2: await issue(keyward.issueDeveloperKey('dev-2')),
    p1: await issue(keyward.issueProjectKey('proj-1', { name: 'web' })),
    p2: await issue(keyward.issueProjectKey('proj-2')),
  }
  const inactive = await keyward.issueProjectKey('proj-1', { name: 'old' })
  await keyward.deactivateKey(inactive.record.id)
  const legacyKey = `dk_${inactive.key.slice(3, 29)}`
  await store.insertKey({
    id: crypto.randomUUID(),
    hash: await hashKey(legacyKey),
    keyPrefix: legacyKey.slice(0, 8),
    ownerType: 'developer',
    ownerId: 'dev-1',
    name: 'legacy',
    active: true,
    createdAt: CONFORMANCE_NOW,
  })
  const createProject: CreateProject = ({ developerId, name }) => {
    if (name === 'explode') throw new Error('insert failed: connection to 10.0.0.7:5432 lost')
    const project = { id: `proj-${projects.size + 1}`, name, developerId, createdAt: CONFORMANCE_NOW }
    projects.set(project.id, project)
    return project
  }
  // A keyset over the projects: after `after` in the order (created_at, id) descending.
  const position = (p: { readonly createdAt: Date | string; readonly id: string }) =>
    `${new Date(p.createdAt).toISOString()} ${p.id}`
  const listProjects: ListProjects = ({ developerId, limit, after }) => {
    const mine = [...projects.values()]
      .filter((p) => p.developerId === developerId && (!after || position(p) < position(after)))
      .sort((a, b) => (position(a) < position(b) ? 1 : -1))
    const page = mine.slice(0, limit)
    return { projects: page, next: mine.length > limit ? page.at(-1)! : null }
  }
  const app: ConformanceApp = {
    keyward,
    createProject,
    listProjects,
    verifyToken: (token) => (token === CONFORMANCE_TOKEN ? { projectId: 'proj-1' } : null),
    failure: new KeywardError('not_found', 'Generation not found.', ['path', 'generation_id']),
  }
  events.length = 0
  return {
    app,
    keyward,
    events,
    projects,
    setStoreDown: (down) => {
      store.down = down
    },
    lookups: () => store.lookups,
    keys,
    inactiveKey: inactive.key,
    legacyKey,
  }
}

/**
 * Two new API keys of proj-1 for tests of permissions and metadata: `reader` carries
 * `reports:read` and the metadata `{ plan: 'pro', seats: 3 }`, `writer` only `reports:write`.
 *
 * @example
 * ```ts
 * const { reader, writer } = await issuePolicyKeys(world.keyward)
 * ```
 */
export async function issuePolicyKeys(keyward: Keyward): Promise<{ reader: string; writer: string }> {
  const reader = await keyward.issueProjectKey('proj-1', {
    permissions: ['reports:read'],
    metadata: { plan: 'pro', seats: 3 },
  })
  const writer = await keyward.issueProjectKey('proj-1', { permissions: ['reports:write'] })
  return { reader: reader.key, writer: writer.key }
}
