import { API_SCHEMAS, checkBody, checkQueryNames, readJsonObjectBody } from '@keyward/core'
import { requireProject, toKeywardRequest } from '@keyward/hono'
import { Hono } from 'hono'
import { projectOwner } from '../db/projects.js'
import { projectNotFound } from '../http/not-found.js'
import { respond } from '../http/respond.js'
import type { RouteContext } from './context.js'

/** `POST /api/v1/projects/{project_id}/access-tokens`: a short-lived token for the API key's project. */
export function accessTokenRoutes({
  keyward,
  sql,
  tokens,
  database,
  verificationsCurrent,
  bodyLimit,
}: RouteContext): Hono {
  return new Hono().post('/api/v1/projects/:project_id/access-tokens', requireProject(keyward), async (c) => {
    const { projectId, projectKey } = c.get('keyward')
    const request = toKeywardRequest(c)
    // No query, and no body or `{}`: an option this endpoint does not have (`expires_in`) is
    // refused, not ignored.
    checkQueryNames(request, [])
    checkBody(API_SCHEMAS.NoFieldsBody, (await readJsonObjectBody(request, { limit: bodyLimit }))?.value)
    // No token for a project once its deletion has answered. A deletion deactivates the project's
    // keys in its transaction, so when verifications see every acknowledged revocation, the key
    // verified just now proves the project is there. Otherwise another process's cache may not
    // have heard of the deletion yet, and the project is read from the database.
    if (
      !verificationsCurrent &&
      (await database('projects.owner', () => projectOwner(sql, projectId))) === null
    ) {
      throw projectNotFound(projectId)
    }
    const accessToken = await tokens.issue({ projectId, keyId: projectKey.id })
    return respond(c, 201, { access_token: accessToken, token_type: 'bearer', expires_in: tokens.expiresIn })
  })
}
