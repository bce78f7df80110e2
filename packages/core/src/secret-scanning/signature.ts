// ECDSA P-256 / SHA-256 signatures as a secret-scanning sender makes them: base64 of a DER
// `SEQUENCE { INTEGER r, INTEGER s }`, checked with Web Crypto against a PEM (SPKI) public key.

const SCALAR = 32

/** @internal Decodes standard base64; `null` for anything that is not. */
export function base64Bytes(text: string): Uint8Array<ArrayBuffer> | null {
  const clean = text.replace(/\s+/g, '')
  if (clean === '' || !/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) return null
  try {
    const binary = atob(clean)
    const bytes = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
    return bytes
  } catch {
    return null
  }
}

/** One DER INTEGER at `at`, as an unsigned big-endian number of exactly 32 bytes, or `null`. */
function readScalar(der: Uint8Array, at: number): { value: Uint8Array; next: number } | null {
  if (der[at] !== 0x02) return null
  const length = der[at + 1]
  if (length === undefined || length === 0 || length > SCALAR + 1) return null
  let start = at + 2
  const end = start + length
  if (end > der.length) return null
  // A leading zero only marks a positive number whose top bit is set; strip it.
  if (length === SCALAR + 1) {
    if (der[start] !== 0) return null
    start++
  }
  const value = new Uint8Array(SCALAR)
  value.set(der.subarray(start, end), SCALAR - (end - start))
  return { value, next: end }
}

/**
 * @internal Converts a DER ECDSA signature into the raw `r || s` (64 bytes) that Web Crypto
 * verifies, or `null` when it is not a well-formed P-256 signature.
 */
export function derToRawSignature(der: Uint8Array): Uint8Array<ArrayBuffer> | null {
  // SEQUENCE with a short-form length: a P-256 signature is at most 72 bytes.
  if (der.length < 8 || der[0] !== 0x30 || der[1] !== der.length - 2) return null
  const r = readScalar(der, 2)
  const s = r && readScalar(der, r.next)
  if (!r || !s || s.next !== der.length) return null
  const raw = new Uint8Array(SCALAR * 2)
  raw.set(r.value, 0)
  raw.set(s.value, SCALAR)
  return raw
}

/** @internal The DER bytes of a PEM `PUBLIC KEY` block, or `null`. */
export function pemToSpki(pem: string): Uint8Array<ArrayBuffer> | null {
  const match = /-----BEGIN PUBLIC KEY-----([A-Za-z0-9+/=\s]+)-----END PUBLIC KEY-----/.exec(pem)
  return match ? base64Bytes(match[1]!) : null
}

/** @internal A public key that Web Crypto imported for verifying. */
export type VerifyKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>

/** @internal Imports a PEM (SPKI) P-256 public key for verifying; rejects when it is not one. */
export async function importVerifyKey(pem: string): Promise<VerifyKey> {
  const spki = pemToSpki(pem)
  if (!spki) throw new TypeError('Not a PEM public key.')
  return crypto.subtle.importKey('spki', spki, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify'])
}

/**
 * @internal Whether `signature` (base64 DER) is a valid ECDSA P-256 / SHA-256 signature of
 * `data` by `key`. Malformed signatures are simply not valid.
 */
export async function verifySignature(key: VerifyKey, signature: string, data: Uint8Array): Promise<boolean> {
  const der = base64Bytes(signature)
  const raw = der && derToRawSignature(der)
  if (!raw) return false
  return crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, raw, data as Uint8Array<ArrayBuffer>)
}
