import type { ProjectRecord } from '@keyward/core'
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
  return { id: row!.id, name: row!.name, developerId: row!.developer_id, createdAt: row!.created_at }
}

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
 * Locks a project's row until the transaction ends; `false` when there is no such project.
 * A generation created meanwhile waits for the lock (its foreign key), then finds no project.
 */
export async function lockProject(sql: Sql, projectId: string): Promise<boolean> {
  if (!isUuid(projectId)) return false
  const locked = await sql.query(`SELECT id FROM ${APP_SCHEMA}.projects WHERE id = $1 FOR UPDATE`, [
    projectId,
  ])
  return locked.length > 0
}

/** Deletes a project and its generations; `false` when there was no such project. */
export async function deleteProject(sql: Sql, projectId: string): Promise<boolean> {
  await sql.query(`DELETE FROM ${APP_SCHEMA}.generations WHERE project_id = $1`, [projectId])
  const deleted = await sql.query(`DELETE FROM ${APP_SCHEMA}.projects WHERE id = $1 RETURNING id`, [
    projectId,
  ])
  return deleted.length > 0
}
