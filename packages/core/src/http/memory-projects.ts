import type { CreateProject, ListProjects } from './key-routes.js'
import type { ProjectRecord } from './shapes.js'

/** A project to start a {@link MemoryProjects} with; `createdAt` defaults to now. */
export interface MemoryProject {
  readonly id: string
  readonly name: string
  readonly developerId: string
  readonly createdAt?: Date
}

// The listing's order: newest first, then the greater id first.
const position = (project: { readonly createdAt: Date | string; readonly id: string }) =>
  `${new Date(project.createdAt).toISOString()} ${project.id}`

/**
 * Projects in memory, for examples and tests, as {@link MemoryKeyStore} keeps keys: what the key
 * routes need of a host's projects (`createProject`, `listProjects`, a page at a time) and what the
 * service needs (`projectOwner`). A real app keeps its projects in its own database.
 *
 * @example
 * ```ts
 * const projects = new MemoryProjects([{ id: 'proj_1', name: 'Example', developerId: 'dev_1' }])
 * const keyward = createKeyward({ store: new MemoryKeyStore(), projectOwner: projects.owner })
 * app.route('/', keywardRoutes(keyward, projects.routes))
 * ```
 */
export class MemoryProjects {
  readonly #projects = new Map<string, ProjectRecord>()

  constructor(initial: readonly MemoryProject[] = []) {
    for (const project of initial) this.#projects.set(project.id, { createdAt: new Date(), ...project })
  }

  /** The project's owner, or `null`: the service's `projectOwner` option. */
  readonly owner = (projectId: string): string | null => this.#projects.get(projectId)?.developerId ?? null

  /** Creates a project with a random UUID: the key routes' `createProject` option. */
  readonly createProject: CreateProject = ({ developerId, name }) => {
    const project = { id: crypto.randomUUID(), name, developerId, createdAt: new Date() }
    this.#projects.set(project.id, project)
    return project
  }

  /** A developer's projects, newest first, a page at a time: the key routes' `listProjects` option. */
  readonly listProjects: ListProjects = ({ developerId, limit, after }) => {
    const mine = [...this.#projects.values()]
      .filter(
        (project) => project.developerId === developerId && (!after || position(project) < position(after)),
      )
      .sort((a, b) => (position(a) < position(b) ? 1 : -1))
    const page = mine.slice(0, limit)
    return { projects: page, next: mine.length > limit ? page.at(-1)! : null }
  }

  /** Deletes a project; `true` if there was one. Its keys are the caller's to deactivate. */
  delete(projectId: string): boolean {
    return this.#projects.delete(projectId)
  }

  /** Both options of the key routes: `keywardRoutes(keyward, projects.routes)`. */
  get routes(): { readonly createProject: CreateProject; readonly listProjects: ListProjects } {
    return { createProject: this.createProject, listProjects: this.listProjects }
  }
}
