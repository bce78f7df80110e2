import { useCallback, useMemo } from 'preact/hooks'
import { type Project, projectKeys, type UsageRange } from '../../api'
import { ProjectHeader } from '../../components/ProjectHeader'
import { UsageChart } from '../../components/UsageChart'

/** The verifications of every API key of one project over time. */
export function ProjectUsage({ projectId, project }: { projectId: string; project: Project | undefined }) {
  const calls = useMemo(() => projectKeys(projectId), [projectId])
  const load = useCallback((range: UsageRange) => calls.usage(range), [calls])
  return (
    <main id="main" class="stack">
      <ProjectHeader projectId={projectId} project={project} section="usage" />
      <p class="muted">
        Verifications of the project's API keys, accepted and refused (an expired or revoked key, a policy, a
        limit). Each key's page shows its own.
      </p>
      <UsageChart load={load} what="the project's keys" />
    </main>
  )
}
