// The Web-standard APIs that core's HTTP layer uses besides those of ../platform.d.ts.
// Each exists in Node 20+, Bun, Deno, browsers and edge workers.

declare class TextDecoder {
  constructor(label?: 'utf-8', options?: { fatal?: boolean })
  decode(input?: Uint8Array, options?: { stream?: boolean }): string
}
