// A session's developer key is split in two: the browser's HttpOnly cookie holds it encrypted
// (AES-256-GCM), the server holds the session's encryption key. Neither half alone is the key,
// and ending a session on the server makes its cookie worthless.

const encoder = new TextEncoder()
const decoder = new TextDecoder()

function toBase64Url(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'))
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}

/** A random identifier of `bytes` random bytes, base64url. */
export function randomId(bytes = 32): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)))
}

/** A new encryption key of one session: as `text` for the server's session store, and as a key. */
export async function newSealKey(): Promise<{ readonly text: string; readonly key: CryptoKey }> {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  const key = await crypto.subtle.importKey('raw', bytes, 'AES-GCM', false, ['encrypt', 'decrypt'])
  return { text: toBase64Url(bytes), key }
}

/** A session's key from its `text`, or `undefined` when the text is not one. */
export async function importSealKey(text: string): Promise<CryptoKey | undefined> {
  const bytes = fromBase64Url(text)
  if (bytes === undefined || bytes.length !== 32) return undefined
  return crypto.subtle.importKey('raw', bytes, 'AES-GCM', false, ['encrypt', 'decrypt'])
}

/** `secret` encrypted with `key`, bound to `context` (the session's id): `iv.ciphertext`, base64url. */
export async function seal(key: CryptoKey, secret: string, context: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12))
  const additionalData = encoder.encode(context)
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData },
    key,
    encoder.encode(secret),
  )
  return `${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`
}

/** What {@link seal} encrypted, or `undefined` for anything else (another session's, altered, garbage). */
export async function unseal(key: CryptoKey, sealed: string, context: string): Promise<string | undefined> {
  const [ivText, dataText, extra] = sealed.split('.')
  if (ivText === undefined || dataText === undefined || extra !== undefined) return undefined
  const iv = fromBase64Url(ivText)
  const data = fromBase64Url(dataText)
  if (iv === undefined || iv.length !== 12 || data === undefined) return undefined
  try {
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv, additionalData: encoder.encode(context) },
      key,
      data,
    )
    return decoder.decode(plain)
  } catch {
    return undefined
  }
}
