// @keyward/client in a browser: bundled for the browser, it loads and calls the API with none of
// Node's globals or modules (no `process`, no `require`, no `node:` import).

import { fileURLToPath } from 'node:url'
import { runInNewContext } from 'node:vm'
import { build } from 'vite'
import { describe, expect, it } from 'vitest'

const entry = fileURLToPath(new URL('./index.ts', import.meta.url))
const core = fileURLToPath(new URL('../../core/src/index.ts', import.meta.url))

async function browserBundle(): Promise<string> {
  const result = await build({
    configFile: false,
    logLevel: 'silent',
    resolve: { alias: [{ find: /^@keyward\/core$/, replacement: core }] },
    build: {
      write: false,
      minify: false,
      lib: { entry, formats: ['iife'], name: 'KeywardClient', fileName: 'client' },
    },
  })
  const outputs = Array.isArray(result) ? result : [result]
  const chunk = outputs
    .flatMap((output) => ('output' in output ? output.output : []))
    .find((o) => o.type === 'chunk')
  if (chunk?.type !== 'chunk') throw new Error('no bundle')
  return chunk.code
}

describe('@keyward/client in a browser', () => {
  it('bundles with no Node module, and runs in a page without Node globals', async () => {
    const code = await browserBundle()
    expect(code).not.toMatch(/\brequire\(|from\s*["']node:|import\(["']node:/)
    const seen: { url: string; init: RequestInit }[] = []
    // What a page has: fetch, Web Crypto, TextEncoder, AbortSignal. Not process, not require.
    const page = {
      fetch: async (url: string, init: RequestInit) => {
        seen.push({ url, init })
        return new Response('{"projects":[],"next_cursor":null}', { status: 200 })
      },
      crypto: globalThis.crypto,
      TextEncoder,
      TextDecoder,
      AbortSignal,
      Response,
      URL,
      console,
      setTimeout,
      clearTimeout,
    }
    const context = {
      ...page,
      globalThis: undefined as unknown,
      window: undefined as unknown,
      self: undefined as unknown,
    }
    context.globalThis = context
    context.window = context
    context.self = context
    const client = runInNewContext(`${code}\nKeywardClient`, context) as typeof import('./index.js')
    const browser = client.createClient({ baseUrl: 'https://console.example.com', session: true })
    expect(await browser.projects.list({ limit: 10 })).toEqual({ projects: [], next_cursor: null })
    expect(seen[0]?.url).toBe('https://console.example.com/api/v1/projects?limit=10')
    expect(seen[0]?.init.credentials).toBe('same-origin')
  }, 60_000)
})
