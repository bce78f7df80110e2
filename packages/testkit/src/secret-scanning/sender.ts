import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

interface SigningKey {
  readonly identifier: string
  readonly privateKey: KeyObject
  readonly pem: string
  current: boolean
}

/** A stand-in for the sender of secret-scanning alerts, with a key pair and a keys document of its own. */
export interface SecretScanningSender {
  /** Where the public-keys document is served: `http://127.0.0.1:PORT/keys`. */
  readonly keysUrl: string
  /** The identifier of the current key. */
  readonly identifier: string
  /** How many times the keys document was fetched. */
  readonly fetches: number
  /** The base64 DER ECDSA P-256 / SHA-256 signature of `body` by the current key (or `identifier`'s). */
  sign(body: string | Uint8Array, identifier?: string): string
  /** The two headers of a signed alert, as `[name, value]` pairs. */
  headers(body: string | Uint8Array): Array<[string, string]>
  /** Makes a new current key; the old ones stay in the document, not current. Returns the new identifier. */
  rotate(): string
  /** The status the keys URL answers from now on (200 serves the document). */
  setStatus(status: number): void
  close(): Promise<void>
}

function newKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const der = publicKey.export({ type: 'spki', format: 'der' })
  return {
    identifier: createHash('sha256').update(der).digest('hex'),
    privateKey,
    pem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    current: true,
  }
}

/**
 * Starts a sender on 127.0.0.1 and an ephemeral port: a fresh P-256 key pair and an HTTP
 * server that serves its public keys as `{"public_keys":[{"key_identifier","key","is_current"}]}`,
 * the format of GitHub's secret-scanning keys document. Tests sign alerts with it, offline.
 *
 * @example
 * ```ts
 * const sender = await startSecretScanningSender()
 * const body = JSON.stringify([{ token: key, type: 'keyward_api_key', url: '', source: 'content' }])
 * await fetch(url, { method: 'POST', headers: sender.headers(body), body })
 * await sender.close()
 * ```
 */
export async function startSecretScanningSender(): Promise<SecretScanningSender> {
  const keys: SigningKey[] = [newKey()]
  let fetches = 0
  let status = 200
  const server = createServer((req, res) => {
    fetches++
    if (req.url !== '/keys' || status !== 200) {
      res.writeHead(req.url === '/keys' ? status : 404).end()
      return
    }
    const document = {
      public_keys: keys.map((k) => ({ key_identifier: k.identifier, key: k.pem, is_current: k.current })),
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const current = () => keys.find((k) => k.current)!
  const signWith = (body: string | Uint8Array, identifier = current().identifier) => {
    const key = keys.find((k) => k.identifier === identifier)
    if (!key) throw new Error(`No key ${identifier}.`)
    return sign('sha256', typeof body === 'string' ? Buffer.from(body) : body, key.privateKey).toString(
      'base64',
    )
  }
  return {
    keysUrl: `http://127.0.0.1:${port}/keys`,
    get identifier() {
      return current().identifier
    },
    get fetches() {
      return fetches
    },
    sign: signWith,
    headers: (body) => [
      ['github-public-key-identifier', current().identifier],
      ['github-public-key-signature', signWith(body)],
    ],
    rotate() {
      for (const key of keys) key.current = false
      const key = newKey()
      keys.push(key)
      return key.identifier
    },
    setStatus(next) {
      status = next
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
