import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { sha256Hex } from '../hash/digest.js'
import { requestId } from '../http/audit-context.js'
import { readJsonBody } from '../http/body.js'
import { checkQueryNames } from '../http/query-parameters.js'
import { errorResponse, jsonResponse } from '../http/response.js'
import type { KeyRoute, KeywardRequest } from '../http/types.js'
import { KEY_PATTERN, LEGACY_DEVELOPER_KEY_PREFIX, MIN_KEY_LENGTH } from '../key/constants.js'
import type { Keyward } from '../service/keyward.js'
import { parseAlert, type SecretScanningMatch } from './alert.js'
import { checkSecretScanningOptions, type SecretScanningOptions } from './options.js'
import { publicKeySource } from './public-keys.js'
import { verifySignature } from './signature.js'

/**
 * Where the reference server and the adapters' route helpers mount the GitHub alert endpoint.
 *
 * @example
 * ```ts
 * const url = `https://api.example.com${SECRET_SCANNING_PATH}` // the URL to give GitHub
 * ```
 */
export const SECRET_SCANNING_PATH = '/api/v1/secret-scanning/github'

const SIGNATURE_HEADER = 'github-public-key-signature'
const IDENTIFIER_HEADER = 'github-public-key-identifier'

/** One element of the feedback array the endpoint answers. */
export type SecretScanningFeedback =
  | { readonly token_hash: string; readonly token_type: string; readonly label: SecretScanningLabel }
  | { readonly token_raw: string; readonly token_type: string; readonly label: SecretScanningLabel }

/** `true_positive` for a key this service issued, `false_positive` for anything else. */
export type SecretScanningLabel = 'true_positive' | 'false_positive'

function oneHeader(request: KeywardRequest, name: string): string {
  const value = request.header(name)
  const single = Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value
  if (typeof single !== 'string' || single.trim() === '') {
    throw new KeywardError(
      ErrorType.signatureMissing,
      `Send one ${name} header: alerts are accepted only signed by the sender.`,
      ['header', name],
    )
  }
  return single.trim()
}

const badSignature = () =>
  new KeywardError(
    ErrorType.signatureInvalid,
    "The signature does not verify with the sender's public key of this identifier.",
    ['header', SIGNATURE_HEADER],
  )

/** Whether a token can be a key of ours at all: an `ak_` key, or a legacy `dk_` developer key. */
const mayBeKey = (token: string) =>
  KEY_PATTERN.test(token) || (token.startsWith(LEGACY_DEVELOPER_KEY_PREFIX) && token.length >= MIN_KEY_LENGTH)

/**
 * The endpoint of GitHub's secret-scanning partner program, framework-neutral: it takes an
 * alert (a JSON array of `{ token, type, url, source }`) signed with ECDSA P-256 / SHA-256
 * over the raw body, checks the signature against the sender's published public keys
 * (`GITHUB-PUBLIC-KEY-IDENTIFIER`, `GITHUB-PUBLIC-KEY-SIGNATURE`), revokes every key of ours
 * among the tokens through {@link Keyward.revokeLeakedKeys} (so the owner's `onEvent` hears
 * `key.leaked`), and answers the feedback array: `true_positive` for our keys,
 * `false_positive` for the rest. A missing or bad signature is 401 and touches nothing;
 * a body that is not an alert is 400, one over the limit 413.
 *
 * The adapters' route helpers mount it with their `secretScanning` option.
 *
 * @example
 * ```ts
 * const route = createSecretScanningRoute(keyward, { feedback: 'token_hash' })
 * app.post(route.path, async (c) => send(c, await route.handle(toKeywardRequest(c))))
 * ```
 */
export function createSecretScanningRoute(keyward: Keyward, options: SecretScanningOptions = {}): KeyRoute {
  if (typeof keyward?.revokeLeakedKeys !== 'function') {
    throw new TypeError(
      'createSecretScanningRoute: the first argument must be a Keyward service (createKeyward).',
    )
  }
  const settings = checkSecretScanningOptions(options)
  const keys = publicKeySource(settings)

  async function verified(request: KeywardRequest): Promise<SecretScanningMatch[]> {
    const signature = oneHeader(request, SIGNATURE_HEADER)
    const identifier = oneHeader(request, IDENTIFIER_HEADER)
    const body = await readJsonBody(request, { limit: settings.bodyLimit, keepBytes: true }).catch(
      (error: unknown) => {
        if (error instanceof KeywardError && error.type === ErrorType.jsonInvalid) {
          throw new KeywardError(ErrorType.alertInvalid, error.msg, error.loc)
        }
        throw error
      },
    )
    if (body === undefined) {
      throw new KeywardError(ErrorType.alertInvalid, 'The body should be a JSON array of matches.', ['body'])
    }
    const key = await keys.key(identifier)
    if (key === null || !(await verifySignature(key, signature, body.bytes!))) throw badSignature()
    // Signed, so the sender is known: now its request (GitHub sends no query).
    checkQueryNames(request, [])
    return parseAlert(body.value)
  }

  async function answer(matches: readonly SecretScanningMatch[], request: KeywardRequest) {
    const hashes = await Promise.all(matches.map(({ token }) => sha256Hex(token)))
    const ours = matches.flatMap((match, i) =>
      mayBeKey(match.token) ? [{ hash: hashes[i]!, url: match.url, source: match.source }] : [],
    )
    // The audit rows name the sender's address and the request, as for any other change.
    const results = await keyward.revokeLeakedKeys(ours, {
      actor: { type: 'secret_scanning' },
      clientAddress: keyward.clientAddress(request) ?? null,
      requestId: requestId(request),
    })
    const known = new Set(results.flatMap((result) => (result.record ? [result.hash] : [])))
    return matches.map(({ token, type }, i): SecretScanningFeedback => {
      const label = known.has(hashes[i]!) ? 'true_positive' : 'false_positive'
      return settings.feedback === 'token_raw'
        ? { token_raw: token, token_type: type, label }
        : { token_hash: hashes[i]!, token_type: type, label }
    })
  }

  return {
    method: 'POST',
    path: SECRET_SCANNING_PATH,
    async handle(request) {
      try {
        const feedback = await answer(await verified(request), request)
        return jsonResponse(200, feedback, { 'cache-control': 'no-store' })
      } catch (error) {
        return errorResponse(error)
      }
    },
  }
}
