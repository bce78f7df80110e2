// What the console's browser suites share: the built reference server with a first project, the
// API as any client calls it, and Chromium signed in to the console, the page's findings and sent
// bodies kept.
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, expect } from 'vitest'
import {
  expectDocumentedBodies,
  expectNoFindings,
  keepCspErrors,
  keepSentBodies,
  launchChromium,
  type OpenApiBodies,
  recordPage,
  type SentBody,
  signIn,
} from './browser.js'
import { firstProject, type ServerEnv, serverScope, startServer } from './server-process.js'

/** An answer of the API: its status and JSON body. */
export interface ApiAnswer {
  readonly status: number
  /** As `Response.json()` types it: each test reads the fields of the answer it asked for. */
  readonly body: Awaited<ReturnType<Response['json']>>
}

/** What {@link consoleSuite} gives a `describe` block, its fields set before the block's tests. */
export interface ConsoleSuite {
  /** The browser's page, signed in to the console. */
  page: Page
  /** `http://127.0.0.1:<port>` of the server. */
  base: string
  /** The first start's developer key, which the page signed in with. */
  developerKey: string
  /** The project the suite created ("Shop"). */
  projectId: string
  /** What axe and the layout check found on each page recorded. */
  readonly violations: Map<string, string[]>
  /** The Content-Security-Policy violations the page reported. */
  readonly cspErrors: string[]
  /** The JSON bodies the page sent to the API. */
  readonly sent: SentBody[]
  /** The API, called as any client would, outside the browser, with the developer key. */
  api(path: string, init?: { method?: string; body?: unknown }): Promise<ApiAnswer>
  /** Checks the page with axe and for its layout, and saves it at both sizes in both schemes. */
  record(name: string): Promise<void>
  /** What a page's list of facts (`dl.facts`) says, as text. */
  facts(): Promise<string | null>
  /** Expects every body the page sent to be one that the server's OpenAPI document lists. */
  expectDocumentedBodies(): Promise<void>
  /** Expects `pages` pages recorded (8 findings each), none with a finding, and no CSP violation. */
  expectNoFindings(pages: number): void
}

/**
 * For a `describe` block of the console in a real browser: before its tests, starts the built
 * reference server on PGlite (with `env` besides its data folder), creates the project "Shop",
 * runs `seed` (data made through the API), launches Chromium and signs in to the console; after
 * them, stops both.
 */
export function consoleSuite(
  prefix: string,
  options: { readonly env?: ServerEnv; readonly seed?: (suite: ConsoleSuite) => Promise<void> } = {},
): ConsoleSuite {
  const scope = serverScope(prefix)
  let output = () => '(not started)'
  const suite: ConsoleSuite = {
    page: undefined as unknown as Page,
    base: '',
    developerKey: '',
    projectId: '',
    violations: new Map(),
    cspErrors: [],
    sent: [],
    async api(path, init = {}) {
      const response = await fetch(`${suite.base}/api/v1${path}`, {
        method: init.method ?? 'GET',
        headers: { 'x-developer-key': suite.developerKey, 'content-type': 'application/json' },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      }).catch((error: Error) => {
        // A server that stopped answering: what it printed says why.
        throw new Error(
          `${init.method ?? 'GET'} ${path}: ${error.message} (${String(error.cause ?? '')}); the server printed:\n${output().slice(-4000)}`,
        )
      })
      return { status: response.status, body: await response.json() }
    },
    record: (name) => recordPage(suite.page, name, suite.violations),
    facts: () => suite.page.locator('dl.facts').textContent(),
    async expectDocumentedBodies() {
      const document = (await (await fetch(`${suite.base}/openapi.json`)).json()) as OpenApiBodies
      expectDocumentedBodies(document, suite.sent)
    },
    expectNoFindings(pages) {
      expect(suite.violations.size).toBe(pages * 8)
      expectNoFindings(suite.violations, suite.cspErrors)
    },
  }
  beforeAll(async () => {
    const server = await startServer(scope.cwd(), {
      KEYWARD_DATA_DIR: join(scope.cwd(), 'data'),
      ...options.env,
    })
    scope.onCleanup(() => server.stop())
    output = () => server.output()
    suite.base = server.baseUrl
    const first = await firstProject(server, 'Shop')
    suite.developerKey = first.developerKey
    suite.projectId = first.project.id
    await options.seed?.(suite)
    const browser = await launchChromium()
    scope.onCleanup(() => browser.close())
    suite.page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
    keepSentBodies(suite.page, suite.sent)
    keepCspErrors(suite.page, suite.cspErrors)
    await signIn(suite.page, suite.base, suite.developerKey)
  }, 180_000)
  return suite
}
