import { createHmac } from 'node:crypto'
import { jwtVerify } from 'jose'

/** What an access token grants: the project it is scoped to, and the API key it came from. */
export interface AccessClaims {
  readonly projectId: string
  /** The id of the API key that obtained the token; the token dies with that key. */
  readonly keyId: string
}

/** Issues and verifies the server's access tokens: HS256 JWTs, short-lived, for one project. */
export interface AccessTokens {
  /** The lifetime of a token, in seconds (`expires_in`). */
  readonly expiresIn: number
  issue(claims: AccessClaims): Promise<string>
  /** The token's claims, or `null` when it is not one of ours, was altered, or has expired. */
  verify(token: string): Promise<AccessClaims | null>
}

/** Options of {@link accessTokens}. */
export interface AccessTokenOptions {
  /** The HS256 signing secret (at least 32 characters). */
  readonly secret: string
  /** Lifetime of a token, in seconds. */
  readonly ttlSeconds: number
  /** The clock, for tests. */
  readonly now?: () => Date
}

const ISSUER = 'keyward-server'
const AUDIENCE = 'keyward-server/generations'

const seconds = (date: Date) => Math.floor(date.getTime() / 1000)

/** The protected header of every token: `{"alg":"HS256","typ":"JWT"}`, base64url. */
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')

/** Access tokens signed with `secret`. */
export function accessTokens({
  secret,
  ttlSeconds,
  now = () => new Date(),
}: AccessTokenOptions): AccessTokens {
  // Verification (the side that must refuse every malformed or forged token) is jose's. Signing
  // is the few lines of RFC 7515's compact form with Node's HMAC: jose signs through Web Crypto,
  // which cost about a fifth of the CPU of an access-token request (measured with --cpu-prof).
  const secretBytes = new TextEncoder().encode(secret)
  const key = crypto.subtle.importKey('raw', secretBytes, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ])
  return {
    expiresIn: ttlSeconds,
    async issue({ projectId, keyId }) {
      const issuedAt = seconds(now())
      const claims = {
        project_id: projectId,
        key_id: keyId,
        iss: ISSUER,
        aud: AUDIENCE,
        jti: crypto.randomUUID(),
        iat: issuedAt,
        exp: issuedAt + ttlSeconds,
      }
      const signingInput = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`
      return `${signingInput}.${createHmac('sha256', secretBytes).update(signingInput).digest('base64url')}`
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, await key, {
          algorithms: ['HS256'],
          issuer: ISSUER,
          audience: AUDIENCE,
          requiredClaims: ['exp', 'iat'],
          // Refuses a token issued in the future (`iat`) or older than its lifetime; jose
          // refuses one not valid yet (`nbf`) on its own. No clock tolerance.
          maxTokenAge: ttlSeconds,
          currentDate: now(),
        })
        const { project_id: projectId, key_id: keyId, iat, exp } = payload
        // A lifetime longer than this server gives is refused, whatever `exp` says: the token
        // is accepted at most `ttlSeconds` from `iat` (jose checked both are numbers).
        if ((exp as number) - (iat as number) > ttlSeconds) return null
        return typeof projectId === 'string' && typeof keyId === 'string' ? { projectId, keyId } : null
      } catch {
        return null
      }
    },
  }
}

/** A new random signing secret: 32 bytes from the CSPRNG, base64url. */
export function newTokenSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')
}
