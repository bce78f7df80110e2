import { checkCreditChange } from '../credits/checks.js'
import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { ChangeCreditsBodySchema } from '../openapi/schemas.js'
import { checkBody } from '../openapi/validate.js'
import type { Keyward } from '../service/keyward.js'
import type { DeveloperAuth } from '../service/requirements.js'
import { auditContext } from './audit-context.js'
import { jsonResponse } from './response.js'
import { identityToJson } from './shapes.js'
import type { KeywardRequest, KeywardResponse } from './types.js'

/** The path of the change of an identity's credit pool. */
export const IDENTITY_CREDITS_PATH = '/api/v1/projects/:project_id/identities/:identity_id/credits'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const notFound = () => new KeywardError(ErrorType.notFound, 'Identity not found.', ['path', 'identity_id'])

/**
 * @internal `POST /api/v1/projects/{project_id}/identities/{identity_id}/credits`, after the
 * guard of the project's owner: one atomic change of the identity's credit pool, with the body
 * of a key's credits (`{"op", "amount", "refill"?}`, 422 at the faulty field), audited as
 * `identity.credits_changed`; 200 with the identity as it is after. An identity of another
 * project is 404, as an unknown one, and nothing changes.
 */
export function identityCreditsChange(
  keyward: Keyward,
  body: (request: KeywardRequest) => Promise<Readonly<Record<string, unknown>> | undefined>,
): (request: KeywardRequest, auth: DeveloperAuth) => Promise<KeywardResponse> {
  return async (request, auth) => {
    const id = request.params.identity_id ?? ''
    const identity = UUID.test(id) ? await keyward.findIdentity(id) : null
    if (identity === null || identity.projectId !== auth.projectId) throw notFound()
    const change = checkCreditChange(checkBody(ChangeCreditsBodySchema, await body(request)))
    const updated = await keyward.changeIdentityCredits(
      identity.id,
      change,
      auditContext(keyward, request, auth),
    )
    if (updated === null) throw notFound()
    return jsonResponse(200, identityToJson(updated), { 'cache-control': 'no-store' })
  }
}
