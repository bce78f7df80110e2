import { auditContext, type CreateProject, checkQueryNames, type ListProjects } from '@keyward/core'
import { keywardRoutes, requireElevated, toKeywardRequest } from '@keyward/hono'
import { Hono } from 'hono'
import { deleteProject, insertProject, listProjects, lockProject } from '../db/projects.js'
import { transaction } from '../db/sql.js'
import { projectNotFound } from '../http/not-found.js'
import { respond } from '../http/respond.js'
import type { RouteContext } from './context.js'

/**
 * Keyward's key-management routes, with project creation and listing, the verification endpoint
 * and the secret-scanning alert endpoint, and project deletion (elevated: the owner's developer key and an API key of the project).
 */
export function projectRoutes({
  store,
  sql,
  keyward,
  keywardIn,
  database,
  bodyLimit,
  secretScanning,
  webhooks,
  verifyTokens,
}: RouteContext): Hono {
  // The project row and its default key commit together, or neither does.
  const createProject: CreateProject = ({ developerId, name, issueDefaultKey }) => {
    return database('projects.create', () =>
      transaction(store, async (tx) => {
        const project = await insertProject(tx, { id: crypto.randomUUID(), name, developerId })
        await issueDefaultKey(project.id, keywardIn(tx))
        return project
      }),
    )
  }

  const listDeveloperProjects: ListProjects = (input) =>
    database('projects.list', () => listProjects(sql, input))

  return new Hono()
    .route(
      '/',
      keywardRoutes(keyward, {
        createProject,
        listProjects: listDeveloperProjects,
        bodyLimit,
        secretScanning,
        webhooks,
        verify: { serviceTokens: verifyTokens },
      }),
    )
    .delete('/api/v1/projects/:project_id', requireElevated(keyward), async (c) => {
      const auth = c.get('keyward')
      const { projectId, developerId } = auth
      const request = toKeywardRequest(c)
      checkQueryNames(request, [])
      const audit = auditContext(keyward, request, auth)
      // In one transaction, the project's row locked first: its keys stop working and it gets no
      // new ones (a key created meanwhile is refused, 404, or deactivated here), its generations
      // and the project go (a generation created meanwhile waits, then finds no project: 404).
      const deleted = await database('projects.delete', () =>
        transaction(store, async (tx) => {
          const name = await lockProject(tx, projectId)
          if (name === null) return false
          const service = keywardIn(tx)
          await service.deactivateOwnerKeys({ type: 'project', id: projectId }, audit)
          // Its audit row commits with the deletion, or neither does.
          await service.recordAudit(
            {
              action: 'project.deleted',
              targetType: 'project',
              targetId: projectId,
              developerId,
              projectId,
              before: { name },
            },
            audit,
          )
          return deleteProject(tx, projectId)
        }),
      )
      if (!deleted) throw projectNotFound(projectId)
      return respond(c, 200, { id: projectId, deleted: true })
    })
}
