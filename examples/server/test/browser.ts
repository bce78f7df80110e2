// Debian's Chromium, driven by Playwright, for the console's tests in a real browser.
import { existsSync } from 'node:fs'
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
