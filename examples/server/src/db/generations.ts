import { APP_SCHEMA } from './schema.js'
import { isUuid, type Sql } from './sql.js'

/** A generation as the API shows it. */
export interface GenerationJson {
  readonly id: string
  readonly project_id: string
  readonly created_at: string
}

// PostgreSQL's foreign_key_violation: the project the generation names is gone.
const FOREIGN_KEY_VIOLATION = '23503'

/**
 * Stores a generation of a project, with the request's body as it was sent; `null` when the
 * project is gone (deleted since the token was checked: the foreign key refuses the row).
 */
export async function insertGeneration(
  sql: Sql,
  projectId: string,
  body: string,
): Promise<GenerationJson | null> {
  try {
    const [row] = await sql.query<{ id: string; project_id: string; created_at: Date }>(
      `INSERT INTO ${APP_SCHEMA}.generations (id, project_id, body) VALUES ($1, $2, $3)
       RETURNING id, project_id, created_at`,
      [crypto.randomUUID(), projectId, body],
    )
    return { id: row!.id, project_id: row!.project_id, created_at: row!.created_at.toISOString() }
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === FOREIGN_KEY_VIOLATION) return null
    throw error
  }
}

/**
 * Deletes a generation, only if it belongs to `projectId`: another project's generation is
 * not found, exactly like one that does not exist.
 */
export async function deleteGeneration(sql: Sql, projectId: string, generationId: string): Promise<boolean> {
  if (!isUuid(generationId)) return false
  const deleted = await sql.query(
    `DELETE FROM ${APP_SCHEMA}.generations WHERE id = $1 AND project_id = $2 RETURNING id`,
    [generationId, projectId],
  )
  return deleted.length > 0
}
