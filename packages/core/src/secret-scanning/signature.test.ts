import { generateKeyPairSync, sign, verify } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { base64Bytes, derToRawSignature, importVerifyKey, verifySignature } from './signature.js'

const pair = () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  return { privateKey, publicKey, pem: publicKey.export({ type: 'spki', format: 'pem' }).toString() }
}

describe('ECDSA signatures of secret-scanning alerts', () => {
  it('converts DER to the raw r||s that Node itself accepts as IEEE P1363, short r and s included', () => {
    const { privateKey, publicKey } = pair()
    let short = 0
    // Until a 31-byte (or shorter) r or s has come up: about one signature in 128.
    for (let i = 0; i < 200 || (short === 0 && i < 20_000); i++) {
      const data = Buffer.from(`alert ${i}`)
      const der = sign('sha256', data, privateKey)
      if (der[3]! < 32 || der[5 + der[3]!]! < 32) short++
      const raw = derToRawSignature(der)!
      expect(raw).toHaveLength(64)
      expect(verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, raw)).toBe(true)
    }
    expect(short).toBeGreaterThan(0)
  })

  it('verifies with Web Crypto what the sender signed, and nothing else', async () => {
    const { privateKey, pem } = pair()
    const key = await importVerifyKey(pem)
    const body = new TextEncoder().encode('[{"token":"ak_x","type":"t","url":"","source":"content"}]')
    const signature = sign('sha256', body, privateKey).toString('base64')
    expect(await verifySignature(key, signature, body)).toBe(true)
    const changed = body.slice()
    changed[3] = changed[3]! ^ 1
    expect(await verifySignature(key, signature, changed)).toBe(false)
    const other = sign('sha256', body, pair().privateKey).toString('base64')
    expect(await verifySignature(key, other, body)).toBe(false)
  })

  it('treats any malformed signature as not valid, never as an exception', async () => {
    const key = await importVerifyKey(pair().pem)
    const body = new Uint8Array([1, 2, 3])
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.base64String(),
          fc.uint8Array().map((b) => Buffer.from(b).toString('base64')),
        ),
        async (signature) => {
          expect(await verifySignature(key, signature, body)).toBe(false)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('rejects DER that is not exactly SEQUENCE { INTEGER r, INTEGER s } of P-256 size', () => {
    const good = sign('sha256', Buffer.from('x'), pair().privateKey)
    expect(derToRawSignature(good)).not.toBeNull()
    expect(derToRawSignature(Buffer.concat([good, Buffer.from([0])]))).toBeNull()
    expect(derToRawSignature(good.subarray(0, good.length - 1))).toBeNull()
    const wrongTag = Buffer.from(good)
    wrongTag[0] = 0x31
    expect(derToRawSignature(wrongTag)).toBeNull()
    const tooLong = Buffer.from([0x30, 0x26, 0x02, 0x22, ...Array(34).fill(1), 0x02, 0x01, 0x01])
    expect(derToRawSignature(tooLong)).toBeNull()
  })

  it('decodes only standard base64', () => {
    expect(base64Bytes('AQID')).toEqual(new Uint8Array([1, 2, 3]))
    expect(base64Bytes('AQ ID\n')).toEqual(new Uint8Array([1, 2, 3]))
    expect(base64Bytes('')).toBeNull()
    expect(base64Bytes('A')).toBeNull()
    expect(base64Bytes('AQ-_')).toBeNull()
  })

  it('refuses a PEM that is not a P-256 public key', async () => {
    await expect(importVerifyKey('not a key')).rejects.toThrow()
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey
    await expect(importVerifyKey(rsa.export({ type: 'spki', format: 'pem' }).toString())).rejects.toThrow()
    const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).publicKey
    await expect(importVerifyKey(p384.export({ type: 'spki', format: 'pem' }).toString())).rejects.toThrow()
  })
})
