// Where the page is, read from the address's hash: one place that knows every page's address.

/**
 * The console's own pages, in the order of the navigation. A page that a later feature adds at
 * this level is one entry here, one case in {@link route} and a folder under `pages/`.
 */
export const NAVIGATION: readonly { readonly hash: string; readonly label: string }[] = [
  { hash: '#/projects', label: 'Projects' },
  { hash: '#/developer-keys', label: 'Developer keys' },
  { hash: '#/webhooks', label: 'Webhooks' },
  { hash: '#/audit', label: 'Audit log' },
]

/**
 * The sections of one project, in the order of its tabs: `#/projects/{id}` is the first, the others
 * `#/projects/{id}/{section}`. A section that a later feature adds to a project is one entry here
 * and a folder under `pages/`.
 */
export const PROJECT_SECTIONS = [
  { section: 'keys', label: 'API keys' },
  { section: 'usage', label: 'Usage' },
  { section: 'identities', label: 'Identities' },
  { section: 'roles', label: 'Roles' },
] as const

export type ProjectSection = (typeof PROJECT_SECTIONS)[number]['section']

/** A page and what it is of. */
export type Route =
  | { readonly page: 'projects' }
  | {
      readonly page: 'project'
      readonly projectId: string
      readonly section: ProjectSection
      /**
       * The identities' search (`?q=`, external ids that contain it), which the address keeps. An
       * address of the lookup before it (`?external_id=`) is read as a search for that id.
       */
      readonly search?: string
    }
  | { readonly page: 'key'; readonly projectId: string; readonly keyId: string }
  | { readonly page: 'identity'; readonly projectId: string; readonly identityId: string }
  | { readonly page: 'developer-keys' }
  | { readonly page: 'developer-key'; readonly keyId: string }
  | { readonly page: 'webhooks' }
  | { readonly page: 'webhook'; readonly endpointId: string }
  | { readonly page: 'audit' }

const segment = (value: string) => {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/** The page a hash names; the projects for any it does not. */
export function route(hash: string): Route {
  const path = hash.replace(/^#\/?/, '')
  const query = path.indexOf('?')
  const parts = (query === -1 ? path : path.slice(0, query)).split('/').map(segment)
  const [first, id, second, third] = parts
  if (first === 'projects' && id) {
    if (second === 'keys' && third && parts.length === 4) return { page: 'key', projectId: id, keyId: third }
    if (second === 'identities' && third && parts.length === 4) {
      return { page: 'identity', projectId: id, identityId: third }
    }
    const section = PROJECT_SECTIONS.find((entry) => entry.section === (second ?? 'keys'))
    if (section && parts.length <= 3) {
      const params = new URLSearchParams(query === -1 ? '' : path.slice(query + 1))
      const search = section.section === 'identities' ? (params.get('q') ?? params.get('external_id')) : null
      return {
        page: 'project',
        projectId: id,
        section: section.section,
        ...(search === null || search === '' ? {} : { search }),
      }
    }
  }
  if (first === 'developer-keys' && parts.length <= 2) {
    return id ? { page: 'developer-key', keyId: id } : { page: 'developer-keys' }
  }
  if (first === 'webhooks' && parts.length <= 2) {
    return id ? { page: 'webhook', endpointId: id } : { page: 'webhooks' }
  }
  if (first === 'audit' && parts.length === 1) return { page: 'audit' }
  return { page: 'projects' }
}

/** The address of a project's section. */
export const projectHref = (projectId: string, section: ProjectSection = 'keys') =>
  `#/projects/${encodeURIComponent(projectId)}${section === 'keys' ? '' : `/${section}`}`

/** The address of a project's identities, or of a search of them by external id (`?q=`). */
export const identitiesHref = (projectId: string, search?: string) =>
  `${projectHref(projectId, 'identities')}${search === undefined ? '' : `?${new URLSearchParams({ q: search })}`}`

/** The address of an identity's page. */
export const identityHref = (projectId: string, identityId: string) =>
  `${projectHref(projectId, 'identities')}/${encodeURIComponent(identityId)}`

/** The address of a key's page: an API key of a project, or (without one) a developer key. */
export const keyHref = (keyId: string, projectId?: string) =>
  projectId === undefined
    ? `#/developer-keys/${encodeURIComponent(keyId)}`
    : `${projectHref(projectId)}/keys/${encodeURIComponent(keyId)}`

/** The address of a webhook endpoint's page: its delivery log. */
export const webhookHref = (endpointId: string) => `#/webhooks/${encodeURIComponent(endpointId)}`
