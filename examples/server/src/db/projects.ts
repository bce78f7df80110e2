import type { ListProjectsInput, ProjectPage, ProjectRecord } from '@keyward/core'
import { isUuid, type Sql } from './sql.js'

type ProjectRow = { id: string; name: string; developer_id: string; created_at: unknown }

const PROJECT_COLUMNS = 'id, name, developer_id, created_at'

/** Inserts a project (and its developer, if the server has not seen them yet). */
export async function insertProject(
  sql: Sql,
  project: { id: string; name: string; developerId: string },
): Promise<ProjectRecord> {
  const { dialect } = sql
  const createdAt = dialect.timeParam(new Date())
  // A developer registered with the CLI has keys but no row yet: the first project adds it.
  await sql.run(
    `INSERT INTO ${dialect.table('developers')} (id, created_at) VALUES (?, ?)${dialect.keepExisting}`,
    [project.developerId, createdAt],
  )
  const id = project.id.toLowerCase()
  await sql.run(
    `INSERT INTO ${dialect.table('projects')} (id, name, developer_id, created_at) VALUES (?, ?, ?, ?)`,
    [id, project.name, project.developerId, createdAt],
  )
  const [row] = await sql.query<ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM ${dialect.table('projects')} WHERE id = ?`,
    [id],
  )
  return toProject(sql, row!)
}

/**
 * One page of a developer's projects, newest first: a keyset query on (created_at, id) after the
 * cursor's position, served by the index on (developer_id, created_at DESC, id DESC). The next
 * page starts at the last project's creation time to the precision the database keeps it (the
 * microsecond on PostgreSQL, the millisecond elsewhere).
 */
export async function listProjects(
  sql: Sql,
  { developerId, limit, after }: ListProjectsInput,
): Promise<ProjectPage> {
  const { dialect } = sql
  const select = `SELECT ${PROJECT_COLUMNS}, ${dialect.positionColumn} AS position_at FROM ${dialect.table('projects')}`
  // The limit is an integer checked by the route; a statement's LIMIT takes no parameter everywhere.
  const page = `ORDER BY created_at DESC, id DESC LIMIT ${Math.trunc(limit) + 1}`
  const at = dialect.param.time
  const rows = after
    ? await sql.query<ProjectRow & { position_at: unknown }>(
        `${select} WHERE developer_id = ? AND created_at <= ${at} AND (created_at < ${at} OR ${dialect.idText} < ?) ${page}`,
        [developerId, ...Array(2).fill(dialect.positionValue(after.createdAt)), after.id],
      )
    : await sql.query<ProjectRow & { position_at: unknown }>(`${select} WHERE developer_id = ? ${page}`, [
        developerId,
      ])
  const shown = rows.slice(0, limit)
  const last = shown.at(-1)
  return {
    projects: shown.map((row) => toProject(sql, row)),
    next:
      rows.length > limit && last ? { createdAt: dialect.positionText(last.position_at), id: last.id } : null,
  }
}

const toProject = (sql: Sql, row: ProjectRow): ProjectRecord => ({
  id: row.id,
  name: row.name,
  developerId: row.developer_id,
  createdAt: sql.dialect.toDate(row.created_at),
})

/** The developer that owns a project, or `null` when there is no such project. */
export async function projectOwner(sql: Sql, projectId: string): Promise<string | null> {
  if (!isUuid(projectId)) return null
  const [row] = await sql.query<{ developer_id: string }>(
    `SELECT developer_id FROM ${sql.dialect.table('projects')} WHERE id = ?`,
    [projectId.toLowerCase()],
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
    `SELECT name FROM ${sql.dialect.table('projects')} WHERE id = ?${sql.dialect.forUpdate}`,
    [projectId.toLowerCase()],
  )
  return locked?.name ?? null
}

/** Deletes a project and its generations; `false` when there was no such project. */
export async function deleteProject(sql: Sql, projectId: string): Promise<boolean> {
  const { dialect } = sql
  const id = projectId.toLowerCase()
  await sql.run(`DELETE FROM ${dialect.table('generations')} WHERE project_id = ?`, [id])
  return (await sql.run(`DELETE FROM ${dialect.table('projects')} WHERE id = ?`, [id])) > 0
}
