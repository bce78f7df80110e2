// The Keyward service of a Next.js app: one project, owned by one developer. Keys live in memory
// here, so every start issues new ones (see instrumentation.ts); a real app keeps them in
// @keyward/postgres. Route handlers import `keyward` from this module.
import { createKeyward, type Keyward, MemoryKeyStore } from '@keyward/core'

const projects = new Map([
  ['proj_1', { id: 'proj_1', name: 'Example', developerId: 'dev_1', createdAt: new Date() }],
])

// One service per server process. Next.js bundles instrumentation.ts apart from the route
// handlers, each with its own copy of this module: the service lives on globalThis, so all of
// them share it (and its in-memory keys).
const shared = globalThis as typeof globalThis & { keyward?: Keyward }

shared.keyward ??= createKeyward({
  store: new MemoryKeyStore(),
  projectOwner: (projectId) => projects.get(projectId)?.developerId ?? null,
})

export const keyward = shared.keyward
