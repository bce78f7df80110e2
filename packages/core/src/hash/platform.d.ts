// The Web-standard APIs that a pepper's HMAC uses besides those of ../platform.d.ts, where
// node:crypto is absent. Each exists in Node 20+, Bun, Deno, browsers and edge workers.

/** An HMAC key that Web Crypto imported; opaque. */
interface KeywardHmacKey {
  readonly type: string
}

interface KeywardSubtleCrypto {
  importKey(
    format: 'raw',
    keyData: Uint8Array,
    algorithm: { name: 'HMAC'; hash: 'SHA-256' },
    extractable: false,
    keyUsages: ['sign'],
  ): Promise<KeywardHmacKey>
  sign(algorithm: 'HMAC', key: KeywardHmacKey, data: Uint8Array): Promise<ArrayBuffer>
}

interface TextEncoder {
  encodeInto(input: string, destination: Uint8Array): { read: number; written: number }
}
