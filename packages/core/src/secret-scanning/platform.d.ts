// The Web-standard APIs that core's secret-scanning endpoint uses besides those of
// ../platform.d.ts. Each exists in Node 20+, Bun, Deno, browsers and edge workers.

/** A key that Web Crypto imported; opaque. */
interface KeywardVerifyKey {
  readonly type: string
}

interface KeywardSubtleCrypto {
  importKey(
    format: 'spki',
    keyData: Uint8Array,
    algorithm: { name: 'ECDSA'; namedCurve: 'P-256' },
    extractable: false,
    keyUsages: ['verify'],
  ): Promise<KeywardVerifyKey>
  verify(
    algorithm: { name: 'ECDSA'; hash: 'SHA-256' },
    key: KeywardVerifyKey,
    signature: Uint8Array,
    data: Uint8Array,
  ): Promise<boolean>
}

declare function atob(data: string): string

/** As much of a `fetch` response as Keyward reads. */
interface KeywardFetchResponse {
  readonly ok: boolean
  readonly status: number
  json(): Promise<unknown>
}

declare function fetch(
  url: string,
  init?: { headers?: Record<string, string>; signal?: unknown },
): Promise<KeywardFetchResponse>

declare var AbortSignal: { timeout(milliseconds: number): unknown }
