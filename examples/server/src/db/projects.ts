import type { ListProjectsInput, ProjectPage, ProjectRecord } from '@keyward/core'
import { APP_SCHEMA } from './schema.js'
import { isUuid, type Sql } from './sql.js'

type ProjectRow = { id: string; name: string; developer_id: string; created_at: Date }

/** Inserts a project (and its developer, if the server has not seen them yet). */
export async function insertProject(
  sql: Sql,
  project: { id: string; name: string; developerId: string },
): Promise<ProjectRecord> {
  // A developer registered with the CLI has keys but no row yet: the first project adds it.
  await sql.query(`INSERT INTO ${APP_SCHEMA}.developers (id) VALUES ($1) ON CONFLICT (id) DO NOTHING`, [
    project.developerId,
  ])
  const [row] = await sql.query<ProjectRow>(
    `INSERT INTO ${APP_SCHEMA}.projects (id, name, developer_id) VALUES ($1, $2, $3) RETURNING *`,
    [project.id, project.name, project.developerId],
  )
  return toProject(row!)
}

const POSITION = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position_at`

/**
 * One page of a developer's projects, newest first: a keyset query on (created_at, id) after the
 * cursor's position, served by the index `projects_developer_page_idx`. The next page starts at
 * the last project's creation time to the microsecond, as PostgreSQL keeps it.
 */
export async function listProjects(
  sql: Sql,
  { developerId, limit, after }: ListProjectsInput,
): Promise<ProjectPage> {
  const rows = after
    ? await sql.query<ProjectRow & { position_at: string }>(
        `SELECT *, ${POSITION} FROM ${APP_SCHEMA}.projects
         WHERE developer_id = $1 AND created_at <= $3::timestamptz AND (created_at < $3::timestamptz OR id::text < $4)
         ORDER BY created_at DESC, id DESC LIMIT $2`,
        [developerId, limit + 1, after.createdAt, after.id],
      )
    : await sql.query<ProjectRow & { position_at: string }>(
        `SELECT *, ${POSITION} FROM ${APP_SCHEMA}.projects WHERE developer_id = $1
         ORDER BY created_at DESC, id DESC LIMIT $2`,
        [developerId, limit + 1],
      )
  const page = rows.slice(0, limit)
  const last = page.at(-1)
  return {
    projects: page.map(toProject),
    next: rows.length > limit && last ? { createdAt: last.position_at, id: last.id } : null,
  }
}

const toProject = (row: ProjectRow): ProjectRecord => ({
  id: row.id,
  name: row.name,
  developerId: row.developer_id,
  createdAt: row.created_at,
})

/** The developer that owns a project, or `null` when there is no such project. */
export async function projectOwner(sql: Sql, projectId: string): Promise<string | null> {
  if (!isUuid(projectId)) return null
  const [row] = await sql.query<{ developer_id: string }>(
    `SELECT developer_id FROM ${APP_SCHEMA}.projects WHERE id = $1`,
    [projectId],
  )
  return row?.developer_id ?? null
}

/**
 * Locks a project's row until the transaction ends and returns its name; `null` when there is no
 * such project. A generation created meanwhile waits for the lock (its foreign key), then finds
 * no project.
 */
export async function lockProject(sql: Sql, projectId: string): Promise<string | null> {
  if (!isUuid(projectId)) return null
  const [locked] = await sql.query<{ name: string }>(
    `SELECT name FROM ${APP_SCHEMA}.projects WHERE id = $1 FOR UPDATE`,
    [projectId],
  )
  return locked?.name ?? null
}

/** Deletes a project and its generations; `false` when there was no such project. */
export async function deleteProject(sql: Sql, projectId: string): Promise<boolean> {
  await sql.query(`DELETE FROM ${APP_SCHEMA}.generations WHERE project_id = $1`, [projectId])
  const deleted = await sql.query(`DELETE FROM ${APP_SCHEMA}.projects WHERE id = $1 RETURNING id`, [
    projectId,
  ])
  return deleted.length > 0
}
