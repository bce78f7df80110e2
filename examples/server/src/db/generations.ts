import { isUuid, type Sql } from './sql.js'

/** A generation as the API shows it. */
export interface GenerationJson {
  readonly id: string
  readonly project_id: string
  readonly created_at: string
}

/**
 * Stores a generation of a project, with the request's body as it was sent; `null` when the
 * project is gone (deleted since the token was checked: the insert finds no project, or its
 * foreign key refuses the row when the deletion commits meanwhile).
 */
export async function insertGeneration(
  sql: Sql,
  projectId: string,
  body: string,
): Promise<GenerationJson | null> {
  const { dialect } = sql
  const { param } = dialect
  const id = crypto.randomUUID()
  const createdAt = new Date()
  try {
    const inserted = await sql.run(
      `INSERT INTO ${dialect.table('generations')} (id, project_id, body, created_at)
       SELECT ${param.uuid}, id, ${param.json}, ${param.time} FROM ${dialect.table('projects')} WHERE id = ?`,
      [id, body, dialect.timeParam(createdAt), projectId.toLowerCase()],
    )
    if (inserted === 0) return null
  } catch (error) {
    if (dialect.isForeignKeyViolation(error)) return null
    throw error
  }
  return { id, project_id: projectId.toLowerCase(), created_at: createdAt.toISOString() }
}

/**
 * Deletes a generation, only if it belongs to `projectId`: another project's generation is
 * not found, exactly like one that does not exist.
 */
export async function deleteGeneration(sql: Sql, projectId: string, generationId: string): Promise<boolean> {
  if (!isUuid(generationId)) return false
  const deleted = await sql.run(
    `DELETE FROM ${sql.dialect.table('generations')} WHERE id = ? AND project_id = ?`,
    [generationId.toLowerCase(), projectId.toLowerCase()],
  )
  return deleted > 0
}
