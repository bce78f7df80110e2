// The key routes over a memory store, for the route tests: a fixed clock, two developers and one
// project, and `call` to send a request to the matching route.
import { createKeyRoutes, type ListProjects } from '../http/key-routes.js'
import type { ProjectRecord } from '../http/shapes.js'
import type { KeywardRequest } from '../http/types.js'
import { createKeyward } from '../service/keyward.js'
import type { KeywardOptions } from '../service/options.js'
import { MemoryKeyStore } from '../store/memory.js'
import type { WebhookEndpointsOptions } from '../webhooks/endpoints.js'

export const NOW = new Date('2025-01-02T03:04:05.000Z')

export async function world(
  options: {
    createProject?: 'router' | 'host' | 'twice' | 'other' | 'none'
    listProjects?: boolean
    /** Options of the service besides its store, clock and owners (declared permissions, key policies). */
    service?: Partial<KeywardOptions>
    bodyLimit?: number
    /** Mounts the webhook endpoints with these options. */
    webhooks?: WebhookEndpointsOptions
  } = {},
) {
  const projects = new Map<string, ProjectRecord>()
  const keyward = createKeyward({
    store: new MemoryKeyStore(),
    now: () => NOW,
    projectOwner: (id) => projects.get(id)?.developerId ?? null,
    ...options.service,
  })
  projects.set('p1', { id: 'p1', name: 'one', developerId: 'd1', createdAt: NOW })
  const mode = options.createProject ?? 'router'
  // Newest first, the greater id first among projects created in the same instant.
  const listProjects: ListProjects = ({ developerId, limit, after }) => {
    const key = (p: { createdAt: Date | string; id: string }) =>
      `${new Date(p.createdAt).toISOString()} ${p.id}`
    const mine = [...projects.values()]
      .filter((p) => p.developerId === developerId && (!after || key(p) < key(after)))
      .sort((a, b) => (key(a) < key(b) ? 1 : -1))
    const page = mine.slice(0, limit)
    return { projects: page, next: mine.length > limit ? page.at(-1)! : null }
  }
  const routes = createKeyRoutes(keyward, {
    bodyLimit: options.bodyLimit ?? 1024,
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    ...(options.listProjects ? { listProjects } : {}),
    ...(mode === 'none'
      ? {}
      : {
          createProject: async ({ developerId, name, issueDefaultKey }) => {
            const project = { id: `p${projects.size + 1}`, name, developerId, createdAt: NOW }
            projects.set(project.id, project)
            if (mode === 'host' || mode === 'twice') await issueDefaultKey(project.id)
            if (mode === 'twice') await issueDefaultKey(project.id)
            if (mode === 'other') await issueDefaultKey('p1')
            return project
          },
        }),
  })
  const d1 = (await keyward.issueDeveloperKey('d1')).key
  const d2 = (await keyward.issueDeveloperKey('d2')).key
  async function call(
    method: string,
    path: string,
    init: { key?: string; body?: string; headers?: Record<string, string> } = {},
  ) {
    let params: Record<string, string> = {}
    const route = routes.find((r) => {
      const names = [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]!)
      const match = new RegExp(`^${r.path.replace(/:(\w+)/g, '([^/]+)')}$`).exec(path.split('?')[0]!)
      if (r.method !== method || !match) return false
      params = Object.fromEntries(names.map((name, i) => [name, match[i + 1]!]))
      return true
    })
    if (!route) throw new Error(`no route ${method} ${path}`)
    const request: KeywardRequest = {
      method,
      url: path,
      params,
      address: '203.0.113.5',
      header: (name) =>
        init.headers?.[name] ??
        (name === 'x-developer-key'
          ? init.key
          : name === 'content-type' && init.body !== undefined
            ? 'application/json'
            : undefined),
      body: () => ({
        raw:
          init.body === undefined
            ? null
            : (async function* () {
                yield new TextEncoder().encode(init.body)
              })(),
      }),
    }
    const response = await route.handle(request)
    return { status: response.status, headers: response.headers, json: JSON.parse(response.body) }
  }
  return { keyward, routes, projects, d1, d2, call }
}
