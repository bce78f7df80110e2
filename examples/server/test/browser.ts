// Debian's Chromium, driven by Playwright, for the console's tests in a real browser.
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import axe from 'axe-core'
import { type Browser, chromium, type Page } from 'playwright-core'
import { expect } from 'vitest'

/** Where Chromium is: `KEYWARD_CHROMIUM_BIN`, or Debian's package. */
export const CHROMIUM_BIN = [
  process.env.KEYWARD_CHROMIUM_BIN,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
].find((path): path is string => typeof path === 'string' && path !== '' && existsSync(path))

if (CHROMIUM_BIN === undefined && process.env.KEYWARD_REQUIRE_CHROMIUM === '1') {
  throw new Error('KEYWARD_REQUIRE_CHROMIUM=1, but Chromium is not installed (apt-get install chromium).')
}

/** Launches headless Chromium with nothing that reaches out to the network by itself. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_BIN,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  })
}

/** The accessibility violations axe-core finds on the page, serious or critical only. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated by the browser's debugger, which the page's Content-Security-Policy does not limit.
  await page.evaluate(axe.source)
  const results = await page.evaluate(() =>
    (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }),
  )
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
    )
}

/**
 * What is wrong with the page's layout at its size: a page wider than the window, a table that
 * scrolls sideways, a word broken across lines (a column squeezed to a letter or two), and on a
 * desktop (`wide`) a table cell of more than one line. Text that is hidden (closed, clipped for
 * screen readers) is not looked at.
 */
export function layoutProblems(page: Page, wide: boolean): Promise<string[]> {
  return page.evaluate((wide) => {
    const problems: string[] = []
    const where = (element: Element) =>
      `${element.tagName.toLowerCase()}${element.className ? `.${String(element.className).split(' ')[0]}` : ''} “${(element.textContent ?? '').trim().slice(0, 40)}”`
    if (document.documentElement.scrollWidth > innerWidth + 1) {
      problems.push(`the page is ${document.documentElement.scrollWidth}px wide in a ${innerWidth}px window`)
    }
    for (const wrap of Array.from(document.querySelectorAll('.table-wrap'))) {
      if (wrap.scrollWidth > wrap.clientWidth + 1) problems.push(`${where(wrap)} scrolls sideways`)
    }
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement
      if (!parent || parent.closest('.visually-hidden, option, script, style, select')) continue
      const text = node.textContent ?? ''
      for (const match of text.matchAll(/[^\s-]{2,}/g)) {
        const range = document.createRange()
        range.setStart(node, match.index)
        range.setEnd(node, match.index + match[0].length)
        const tops = new Set(
          Array.from(range.getClientRects())
            .filter((r) => r.width > 0)
            .map((r) => Math.round(r.top)),
        )
        if (tops.size > 1) problems.push(`the word “${match[0]}” is broken across ${tops.size} lines`)
      }
    }
    if (wide) {
      for (const cell of Array.from(document.querySelectorAll('main td'))) {
        const range = document.createRange()
        range.selectNodeContents(cell)
        const lineHeight = Number.parseFloat(getComputedStyle(cell).lineHeight) || 24
        if (range.getBoundingClientRect().height > lineHeight * 1.5) {
          problems.push(`the cell ${where(cell)} takes more than one line`)
        }
      }
    }
    return problems
  }, wide)
}

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
/** Where the screenshots go: `KEYWARD_CONSOLE_SCREENSHOTS` (e.g. `docs/console`), else `test-results/console`. */
const SHOTS = resolve(ROOT, process.env.KEYWARD_CONSOLE_SCREENSHOTS ?? 'test-results/console')
/** The sizes each page is checked and photographed at: a desktop and a phone. */
const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const

/** The colour schemes each page is checked and photographed in. */
const SCHEMES = ['light', 'dark'] as const

/**
 * The whole page as a picture. A modal dialog's backdrop covers the viewport only (it is fixed),
 * so a full-page picture of a page longer than the window showed the part below it bright, as if
 * outside the dialog: with a dialog open, the window is made as tall as the page first (the
 * dialog is then centred in it), and given back its height after.
 */
async function screenshot(
  page: Page,
  path: string,
  size: { readonly width: number; readonly height: number },
) {
  const height = await page.evaluate(() =>
    document.querySelector('dialog:modal') ? document.documentElement.scrollHeight : 0,
  )
  if (height > size.height) await page.setViewportSize({ width: size.width, height })
  await page.screenshot({ path, fullPage: true })
  if (height > size.height) await page.setViewportSize({ width: size.width, height: size.height })
}

/**
 * Checks the page with axe and for its layout ({@link layoutProblems}) at both sizes and in both
 * colour schemes, keeping what it finds in `findings` (`axe: <name> (<size>, <scheme>)` and
 * `layout: ...`), and saves it as `<name>-desktop.png`, `<name>-phone.png` and, in the dark scheme,
 * `<name>-desktop-dark.png`, `<name>-phone-dark.png`; the page is left at the desktop size, light.
 */
export async function recordPage(page: Page, name: string, findings: Map<string, string[]>): Promise<void> {
  await mkdir(SHOTS, { recursive: true })
  await page.waitForLoadState('networkidle')
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme })
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height })
      const label = `${name} (${size.name}, ${scheme})`
      findings.set(`axe: ${label}`, await seriousViolations(page))
      findings.set(`layout: ${label}`, await layoutProblems(page, size.name === 'desktop'))
      const file = `${name}-${size.name}${scheme === 'dark' ? '-dark' : ''}.png`
      await screenshot(page, join(SHOTS, file), size)
    }
  }
  await page.emulateMedia({ colorScheme: 'light' })
  await page.setViewportSize({ width: SIZES[0].width, height: SIZES[0].height })
}

/** A JSON body the page sent to the API: the method and path it went to. */
export interface SentBody {
  readonly method: string
  readonly path: string
  readonly body: unknown
}

/** Keeps, in `sent`, each JSON body the page sends to the API (`/api/...`). */
export function keepSentBodies(page: Page, sent: SentBody[]): void {
  page.on('request', (request) => {
    const { pathname } = new URL(request.url())
    const body = request.postData()
    if (pathname.startsWith('/api/') && body) {
      sent.push({ method: request.method().toLowerCase(), path: pathname, body: JSON.parse(body) })
    }
  })
}

type Schema = {
  $ref?: string
  anyOf?: Schema[]
  oneOf?: Schema[]
  properties?: Record<string, Schema>
  items?: Schema
  additionalProperties?: boolean
}

/** An OpenAPI document, as far as its request bodies go. */
export interface OpenApiBodies {
  readonly paths: Record<
    string,
    Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>
  >
  readonly components: { readonly schemas: Record<string, Schema> }
}

/**
 * Each body `sent` against the OpenAPI `document`: whether its operation documents a JSON body,
 * and the fields of it (nested objects and lists' items included) that the document does not list.
 */
export function undocumentedFields(
  document: OpenApiBodies,
  sent: readonly SentBody[],
): { method: string; path: string; documented: boolean; unknown: string[] }[] {
  const deref = (schema: Schema): Schema =>
    schema.$ref ? deref(document.components.schemas[schema.$ref.split('/').pop()!]!) : schema
  // The fields of `value` that `schema` does not list.
  const unknown = (value: unknown, schema: Schema, at: string): string[] => {
    if (typeof value !== 'object' || value === null) return []
    const shapes = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].map(deref)
    if (Array.isArray(value)) {
      const items = shapes.find((candidate) => candidate.items)?.items
      return items ? value.flatMap((item, i) => unknown(item, items, `${at}.${i}`)) : []
    }
    // Of a union of objects (`{"remaining"}` or `{"percent"}`), the shape that lists most of its fields.
    const listed = (candidate: Schema) =>
      Object.keys(value).filter((name) => candidate.properties?.[name]).length
    const shape = shapes
      .filter((candidate) => candidate.properties)
      .reduce<Schema | undefined>(
        (best, candidate) => (best && listed(best) >= listed(candidate) ? best : candidate),
        undefined,
      )
    // An object of the caller's own fields (`metadata`) takes any.
    if (!shape?.properties || shape.additionalProperties === true) return []
    return Object.entries(value).flatMap(([name, field]) =>
      shape.properties![name] ? unknown(field, shape.properties![name]!, `${at}.${name}`) : [`${at}.${name}`],
    )
  }
  return sent.map(({ method, path, body }) => {
    const operation = Object.entries(document.paths).find(([template]) =>
      new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`).test(path),
    )?.[1][method]
    const schema = operation?.requestBody?.content['application/json']?.schema
    return {
      method,
      path,
      documented: schema !== undefined,
      unknown: schema ? unknown(body, deref(schema), 'body') : [],
    }
  })
}

/** Signs in to the console at `base` with `key`, and waits for the projects page. */
export async function signIn(page: Page, base: string, key: string): Promise<void> {
  await page.goto(`${base}/console/`)
  await page.getByLabel('Developer key').fill(key)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Projects' }).waitFor()
}

/** Keeps, in `errors`, each Content-Security-Policy violation the page reports. */
export function keepCspErrors(page: Page, errors: string[]): void {
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) errors.push(message.text())
  })
}

/**
 * Expects every body `sent` to go to an operation of the OpenAPI `document` that takes a JSON body,
 * with no field the document does not list (which the API would refuse).
 */
export function expectDocumentedBodies(document: OpenApiBodies, sent: readonly SentBody[]): void {
  for (const checked of undocumentedFields(document, sent)) {
    expect(checked).toEqual({ ...checked, documented: true, unknown: [] })
  }
}

/** Expects no finding of axe or of the layout on any page checked, and no Content-Security-Policy violation. */
export function expectNoFindings(findings: Map<string, string[]>, cspErrors: readonly string[]): void {
  expect(Object.fromEntries([...findings].filter(([, found]) => found.length > 0))).toEqual({})
  expect(cspErrors).toEqual([])
}

/** The JSON body of the `PATCH` the page sends when `save` runs (a dialog's button clicked). */
export async function patchBodyOf(page: Page, save: () => Promise<void>): Promise<unknown> {
  const patched = page.waitForRequest((request) => request.method() === 'PATCH')
  await save()
  return (await patched).postDataJSON()
}
