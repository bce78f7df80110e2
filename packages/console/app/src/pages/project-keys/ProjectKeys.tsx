import { useMemo } from 'preact/hooks'
import { type Project, projectKeys } from '../../api'
import { KeyManager } from '../../components/KeyManager'

/** One project's API keys; `permissions`: the names the host declares, which a key may carry. */
export function ProjectKeys({
  projectId,
  project,
  permissions,
}: {
  projectId: string
  project: Project | undefined
  permissions: readonly string[]
}) {
  const calls = useMemo(() => projectKeys(projectId), [projectId])
  return (
    <main id="main" class="stack">
      <p>
        <a href="#/projects">← Projects</a>
      </p>
      <h1>API keys of {project ? `“${project.name}”` : <span class="mono">{projectId}</span>}</h1>
      <p class="muted">
        Requests send these in the <code>X-API-Key</code> header. A project may have any number of them.
      </p>
      <KeyManager
        calls={calls}
        noun="API key"
        limitMessage="This project cannot have another active key right now."
        policies
        permissions={permissions}
      />
    </main>
  )
}
