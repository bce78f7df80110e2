// The platform APIs that @keyward/core uses, and nothing else. Core compiles with
// `"types": []`, so no Node global can slip in: every global it touches is named here,
// and each exists in Node 20+, Bun, Deno, browsers and edge workers.

interface KeywardSubtleCrypto {
  digest(algorithm: 'SHA-256', data: Uint8Array): Promise<ArrayBuffer>
}

interface KeywardCrypto {
  getRandomValues<T extends Uint8Array | Uint32Array>(array: T): T
  randomUUID(): string
  readonly subtle: KeywardSubtleCrypto
}

declare var crypto: KeywardCrypto

declare class TextEncoder {
  encode(input?: string): Uint8Array
}

// Timers: failure reports flush once per interval, `last_used_at` is written off the hot path;
// neither holds a process open (`unref` exists on Node, Bun and Deno).
declare function setTimeout(callback: () => void, ms: number): unknown
declare function clearTimeout(timer: unknown): void
