import { checkQueryNames, ErrorType, KeywardError, readJsonObjectBody } from '@keyward/core'
import { requireBearer, toKeywardRequest } from '@keyward/hono'
import { Hono } from 'hono'
import { deleteGeneration, insertGeneration } from '../db/generations.js'
import { projectOwner } from '../db/projects.js'
import { isUuid } from '../db/sql.js'
import { projectNotFound } from '../http/not-found.js'
import { respond } from '../http/respond.js'
import type { SERVER_PERMISSIONS } from '../service.js'
import type { AccessClaims } from '../tokens.js'
import type { RouteContext } from './context.js'

const GENERATION_LOC = ['path', 'generation_id'] as const

/** Generations, created and deleted with an access token, always within the token's project. */
export function generationRoutes({ sql, keyward, tokens, database, bodyLimit }: RouteContext): Hono {
  // A valid signature is not enough: the project must still exist (404 when it was deleted:
  // the token proves its holder had access to it), and the API key that obtained the token
  // must still pass the guards' check of its state: active and unexpired (revoking a key,
  // its expiry, or the end of a roll's grace window ends its tokens at once). The key's
  // policies hold for its tokens as they are now: its IP allowlist, and the permission of the route.
  const requireToken = (permission: (typeof SERVER_PERMISSIONS)[number]) =>
    requireBearer<AccessClaims>({
      verify: async (token, request) => {
        const claims = await tokens.verify(token)
        if (!claims) return null
        const key = await keyward.findKey(claims.keyId)
        // Read after the key, from the database (not the verification cache's copy, which may
        // not have heard of the deletion yet): a deletion that deactivated the key has removed
        // the project too.
        const owner = await database('projects.owner', () => projectOwner(sql, claims.projectId))
        if (owner === null) throw projectNotFound(claims.projectId)
        if (!keyward.keyUsable(key, 'project') || key.ownerId !== claims.projectId) return null
        const refusal = keyward.keyAccessProblem(key, keyward.clientAddress(request), { allOf: [permission] })
        if (refusal) throw refusal
        return claims
      },
      keyward,
    })

  return new Hono()
    .post('/api/v1/generation/generations-v2', requireToken('generations:write'), async (c) => {
      const { projectId } = c.get('keyward').claims
      const request = toKeywardRequest(c)
      // The token first, then the request: it takes no query, and any JSON object as its body,
      // kept as the text that was sent.
      checkQueryNames(request, [])
      const body = await readJsonObjectBody(request, { limit: bodyLimit })
      if (body === undefined) throw new KeywardError(ErrorType.missing, 'Field required.', ['body'])
      const generation = await database('generations.create', () =>
        insertGeneration(sql, projectId, body.text),
      )
      // The project was deleted after the token was checked.
      if (generation === null) throw projectNotFound(projectId)
      return respond(c, 201, generation)
    })
    .delete(
      '/api/v1/generation/generations-v2/:generation_id',
      requireToken('generations:delete'),
      async (c) => {
        const { projectId } = c.get('keyward').claims
        checkQueryNames(toKeywardRequest(c), [])
        const generationId = c.req.param('generation_id')
        if (!isUuid(generationId)) {
          throw new KeywardError(ErrorType.uuidParsing, 'Input should be a valid UUID.', GENERATION_LOC)
        }
        const deleted = await database('generations.delete', () =>
          deleteGeneration(sql, projectId, generationId),
        )
        if (!deleted) throw new KeywardError(ErrorType.notFound, 'Generation not found.', GENERATION_LOC)
        return respond(c, 200, { id: generationId.toLowerCase(), deleted: true })
      },
    )
}
