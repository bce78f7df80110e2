import type { Project } from '../api'
import { PROJECT_SECTIONS, type ProjectSection, projectHref } from '../routes'

/** A project's heading and the links to its sections (its keys, its usage, and those to come). */
export function ProjectHeader({
  projectId,
  project,
  section,
}: {
  projectId: string
  project: Project | undefined
  section: ProjectSection
}) {
  return (
    <>
      <p>
        <a href="#/projects">← Projects</a>
      </p>
      <h1>{project ? `“${project.name}”` : <span class="mono">{projectId}</span>}</h1>
      <nav aria-label="Project" class="tabs">
        <ul>
          {PROJECT_SECTIONS.map((entry) => (
            <li key={entry.section}>
              <a
                href={projectHref(projectId, entry.section)}
                aria-current={entry.section === section ? 'page' : undefined}
              >
                {entry.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
    </>
  )
}
