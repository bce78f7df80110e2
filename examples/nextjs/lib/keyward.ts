// lib/keyward.ts: the Keyward service of a Next.js app: one project, owned by one developer. Keys
// live in memory here, so every start issues new ones (see instrumentation.ts); a real app keeps
// them in @keyward/postgres. Route handlers import `keyward` (and `projects`) from this module.
import { createKeyward, type Keyward, MemoryKeyStore, type ProjectRecord } from '@keyward/core'

// One service per server process. Next.js bundles instrumentation.ts apart from the route
// handlers, each with its own copy of this module: the service and the projects live on
// globalThis, so all of them share them (and the in-memory keys).
const shared = globalThis as typeof globalThis & {
  keyward?: Keyward
  projects?: Map<string, ProjectRecord>
}

shared.projects ??= new Map([
  ['proj_1', { id: 'proj_1', name: 'Example', developerId: 'dev_1', createdAt: new Date() }],
])
export const projects = shared.projects

shared.keyward ??= createKeyward({
  store: new MemoryKeyStore(),
  projectOwner: (projectId) => projects.get(projectId)?.developerId ?? null,
})

export const keyward = shared.keyward
