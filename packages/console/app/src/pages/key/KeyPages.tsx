import { useMemo } from 'preact/hooks'
import { developerKeys, type Project, projectKeys } from '../../api'
import { projectHref } from '../../routes'
import { DEVELOPER_LIMIT_MESSAGE } from '../developer-keys/DeveloperKeys'
import { PROJECT_LIMIT_MESSAGE } from '../project-keys/ProjectKeys'
import { Key } from './Key'

/** The page of one of a project's API keys. */
export function ProjectKey({
  projectId,
  keyId,
  project,
  permissions,
}: {
  projectId: string
  keyId: string
  project: Project | undefined
  permissions: readonly string[]
}) {
  const calls = useMemo(() => projectKeys(projectId), [projectId])
  return (
    <Key
      calls={calls}
      keyId={keyId}
      back={{
        href: projectHref(projectId),
        label: `API keys of ${project ? `“${project.name}”` : 'the project'}`,
      }}
      limitMessage={PROJECT_LIMIT_MESSAGE}
      permissions={permissions}
    />
  )
}

/** The page of one of the signed-in developer's keys; `currentPrefix`: the key of this session. */
export function DeveloperKey({ keyId, currentPrefix }: { keyId: string; currentPrefix: string }) {
  return (
    <Key
      calls={developerKeys}
      keyId={keyId}
      back={{ href: '#/developer-keys', label: 'Developer keys' }}
      limitMessage={DEVELOPER_LIMIT_MESSAGE}
      permissions={[]}
      currentPrefix={currentPrefix}
    />
  )
}
