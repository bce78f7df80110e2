import { decodeProtectedHeader, jwtVerify, SignJWT, UnsecuredJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { accessTokens, newTokenSecret } from './tokens.js'

const secret = 'a-secret-of-at-least-thirty-two-characters'
const claims = { projectId: crypto.randomUUID(), keyId: crypto.randomUUID() }

describe('access tokens', () => {
  it('round-trips the project and key of an HS256 token', async () => {
    const tokens = accessTokens({ secret, ttlSeconds: 900 })
    const token = await tokens.issue(claims)
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' })
    expect(await tokens.verify(token)).toEqual(claims)
    expect(tokens.expiresIn).toBe(900)
  })

  it('signs tokens that jose verifies on its own, with every claim', async () => {
    const now = new Date('2030-01-01T00:00:00Z')
    const token = await accessTokens({ secret, ttlSeconds: 900, now: () => now }).issue(claims)
    const { payload, protectedHeader } = await jwtVerify(token, new TextEncoder().encode(secret), {
      algorithms: ['HS256'],
      issuer: 'keyward-server',
      audience: 'keyward-server/generations',
      currentDate: now,
    })
    expect(protectedHeader).toEqual({ alg: 'HS256', typ: 'JWT' })
    const iat = now.getTime() / 1000
    expect(payload).toEqual({
      project_id: claims.projectId,
      key_id: claims.keyId,
      iss: 'keyward-server',
      aud: 'keyward-server/generations',
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      iat,
      exp: iat + 900,
    })
    // Each token is its own (jti), and another secret's signature is refused.
    expect(await accessTokens({ secret, ttlSeconds: 900, now: () => now }).issue(claims)).not.toBe(token)
    await expect(jwtVerify(token, new TextEncoder().encode(`${secret}!`))).rejects.toThrow()
  })

  it('refuses an expired token, another secret, another audience, an unsigned token', async () => {
    let now = new Date('2030-01-01T00:00:00Z')
    const tokens = accessTokens({ secret, ttlSeconds: 60, now: () => now })
    const token = await tokens.issue(claims)
    now = new Date('2030-01-01T00:00:59Z')
    expect(await tokens.verify(token)).toEqual(claims)
    now = new Date('2030-01-01T00:01:00Z')
    expect(await tokens.verify(token)).toBeNull()

    const fresh = await accessTokens({ secret, ttlSeconds: 60 }).issue(claims)
    expect(await accessTokens({ secret: `${secret}!`, ttlSeconds: 60 }).verify(fresh)).toBeNull()
    const body = { project_id: claims.projectId, key_id: claims.keyId }
    const otherAudience = await new SignJWT(body)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('keyward-server')
      .setAudience('somewhere-else')
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode(secret))
    const unsigned = new UnsecuredJWT(body)
      .setIssuer('keyward-server')
      .setAudience('keyward-server/generations')
      .setIssuedAt()
      .setExpirationTime('1m')
      .encode()
    const tokensNow = accessTokens({ secret, ttlSeconds: 60 })
    for (const bad of [otherAudience, unsigned, 'garbage', '']) expect(await tokensNow.verify(bad)).toBeNull()
  })

  it('refuses a token issued in the future, or not valid yet', async () => {
    const now = new Date('2030-01-01T00:00:00Z')
    const tokens = accessTokens({ secret, ttlSeconds: 900, now: () => now })
    const at = Math.floor(now.getTime() / 1000)
    const sign = (set: (jwt: SignJWT) => SignJWT) =>
      set(
        new SignJWT({ project_id: claims.projectId, key_id: claims.keyId })
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuer('keyward-server')
          .setAudience('keyward-server/generations')
          .setExpirationTime(at + 600),
      ).sign(new TextEncoder().encode(secret))
    expect(await tokens.verify(await sign((jwt) => jwt.setIssuedAt(at)))).toEqual(claims)
    expect(await tokens.verify(await sign((jwt) => jwt.setIssuedAt(at + 1)))).toBeNull()
    expect(await tokens.verify(await sign((jwt) => jwt.setIssuedAt(at + 300)))).toBeNull()
    expect(await tokens.verify(await sign((jwt) => jwt.setIssuedAt(at).setNotBefore(at + 60)))).toBeNull()
  })

  it('refuses a token whose exp lies further from its iat than the configured lifetime', async () => {
    const now = new Date('2030-01-01T00:00:00Z')
    const tokens = accessTokens({ secret, ttlSeconds: 900, now: () => now })
    const at = Math.floor(now.getTime() / 1000)
    const signed = (exp: number) =>
      new SignJWT({ project_id: claims.projectId, key_id: claims.keyId })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('keyward-server')
        .setAudience('keyward-server/generations')
        .setIssuedAt(at)
        .setExpirationTime(exp)
        .sign(new TextEncoder().encode(secret))
    expect(await tokens.verify(await signed(at + 900))).toEqual(claims)
    // Signed with the real secret (a leaked secret, a bug of an older issuer): never longer than the lifetime.
    expect(await tokens.verify(await signed(at + 901))).toBeNull()
    expect(await tokens.verify(await signed(at + 10 * 365 * 24 * 3600))).toBeNull()
  })

  it('makes 256-bit random secrets', () => {
    const secrets = new Set(Array.from({ length: 20 }, newTokenSecret))
    expect(secrets.size).toBe(20)
    for (const s of secrets) expect(s).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })
})
