import { useMemo } from 'preact/hooks'
import { type Project, projectKeys } from '../../api'
import { KeyList } from '../../components/KeyList'
import { ProjectHeader } from '../../components/ProjectHeader'

/** The project's answer at its limit of active keys. */
export const PROJECT_LIMIT_MESSAGE = 'This project cannot have another active key right now.'

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
      <ProjectHeader projectId={projectId} project={project} section="keys" />
      <p class="muted">
        Requests send these in the <code>X-API-Key</code> header. A project may have any number of them. Open
        a key by its name to change it or see its usage.
      </p>
      <KeyList
        calls={calls}
        noun="API key"
        limitMessage={PROJECT_LIMIT_MESSAGE}
        policies
        permissions={permissions}
      />
    </main>
  )
}
