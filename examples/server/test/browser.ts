// Debian's Chromium, driven by Playwright, for the console's tests in a real browser.
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import axe from 'axe-core'
import { type Browser, chromium, type Page } from 'playwright-core'

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

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
/** Where the screenshots go: `KEYWARD_CONSOLE_SCREENSHOTS` (e.g. `docs/console`), else `test-results/console`. */
const SHOTS = resolve(ROOT, process.env.KEYWARD_CONSOLE_SCREENSHOTS ?? 'test-results/console')
/** The sizes each page is checked and photographed at: a desktop and a phone. */
const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const

/**
 * Checks the page with axe at both sizes, keeping what it finds in `violations`, and saves it as
 * `<name>-desktop.png` and `<name>-phone.png`; the page is left at the desktop size.
 */
export async function recordPage(page: Page, name: string, violations: Map<string, string[]>): Promise<void> {
  await mkdir(SHOTS, { recursive: true })
  await page.waitForLoadState('networkidle')
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height })
    violations.set(`${name} (${size.name})`, await seriousViolations(page))
    await page.screenshot({ path: join(SHOTS, `${name}-${size.name}.png`), fullPage: true })
  }
  await page.setViewportSize({ width: SIZES[0].width, height: SIZES[0].height })
}
