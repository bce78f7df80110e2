// The administrative console in a real browser (Debian's Chromium, driven by Playwright), mounted
// in a host that is not the reference server: a Hono app with Keyward's key routes, as the console's
// guide mounts it. Such a host deletes no projects and has no generations; it declares permissions
// of its own. The dialogs it opens are checked with axe-core and photographed at both sizes.

import { serve } from '@hono/node-server'
import { createConsole } from '@keyward/console'
import { consoleMiddleware } from '@keyward/console/hono'
import { createKeyward, MemoryKeyStore, MemoryProjects } from '@keyward/core'
import { keywardNotFound, keywardOnError, keywardRoutes } from '@keyward/hono'
import { Hono } from 'hono'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM_BIN, launchChromium, recordPage, signIn } from './browser.js'

const DECLARED = ['reports:read', 'reports:write']

describe.skipIf(!CHROMIUM_BIN)(
  'the console in a host of the key routes, in a real browser (install chromium to run)',
  () => {
    let server: ReturnType<typeof serve>
    let browser: Browser
    let page: Page
    let base: string
    let developerKey: string
    const violations = new Map<string, string[]>()

    /** Checks the page with axe and saves it at both sizes, named `host-<name>`. */
    const record = (name: string) => recordPage(page, `host-${name}`, violations)

    /** The suggestions the permission field `id` offers: its datalist's options. */
    const suggestions = (id: string) =>
      page
        .locator(`#${id}`)
        .evaluate((input: HTMLInputElement) =>
          Array.from(input.list?.options ?? [], (option) => option.value),
        )

    beforeAll(async () => {
      const projects = new MemoryProjects([{ id: 'proj_1', name: 'Example', developerId: 'dev_1' }])
      const keyward = createKeyward({
        store: new MemoryKeyStore(),
        projectOwner: projects.owner,
        permissions: DECLARED,
      })
      const app = new Hono()
      app.use(consoleMiddleware(createConsole(keyward)))
      app.route('/', keywardRoutes(keyward, projects.routes))
      app.notFound(keywardNotFound)
      app.onError(keywardOnError)
      server = await new Promise<ReturnType<typeof serve>>((done) => {
        const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => done(started))
      })
      base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
      developerKey = (await keyward.issueDeveloperKey('dev_1', { name: 'laptop' })).key
      await keyward.issueProjectKey('proj_1', { name: 'default' })
      browser = await launchChromium()
      page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
      await signIn(page, base, developerKey)
    }, 120_000)

    afterAll(async () => {
      await browser?.close()
      await new Promise((done) => server?.close(done))
    })

    it('offers no project deletion where the API deletes none, and speaks of no generations', async () => {
      // The host's API has no deletion: it serves no OpenAPI document that lists one.
      const openApi = await fetch(`${base}/openapi.json`)
      expect([openApi.status, (await openApi.json()).detail[0].type]).toEqual([404, 'not_found'])
      await page.getByRole('link', { name: 'Example', exact: true }).waitFor()
      await page.waitForLoadState('networkidle')
      expect(await page.getByRole('button', { name: /^Delete/ }).count()).toBe(0)
      expect(await page.locator('body').textContent()).not.toMatch(/generation/i)
      await page.getByRole('link', { name: 'Example', exact: true }).click()
      await page.getByRole('heading', { level: 1, name: '“Example”' }).waitFor()
      await page.getByText('Access policies (optional)').click()
      await page.waitForLoadState('networkidle')
      const shown = await page.evaluate(() =>
        [
          document.body.textContent,
          ...Array.from(document.querySelectorAll('input, textarea'), (field) =>
            field.getAttribute('placeholder'),
          ),
        ].join('\n'),
      )
      expect(shown).not.toMatch(/generation/i)
    })

    it('suggests the permission names the host declares, those not yet typed', async () => {
      const field = page.getByLabel(/^Permissions/)
      expect(await field.getAttribute('placeholder')).toBe('reports:read')
      expect(await suggestions('new-key-permissions')).toEqual(DECLARED)
      await field.fill('reports:write, rep')
      expect(await suggestions('new-key-permissions')).toEqual(['reports:write, reports:read'])
      await field.fill('reports:read')
      await page.getByLabel('Name of the new API key').fill('reader')
      await page.getByRole('button', { name: 'Create API key' }).click()
      await page.getByRole('button', { name: 'I have stored it' }).click()
      await page.getByRole('link', { name: 'reader', exact: true }).click()
      await expect.poll(() => page.locator('dl.facts').textContent()).toContain('Permissionsreports:read')
      await page.getByRole('button', { name: 'Policies…' }).click()
      const dialog = page.getByRole('dialog', { name: /^Policies of / })
      expect(await suggestions('edit-key-permissions')).toEqual(['reports:read', 'reports:write'])
      await dialog.getByLabel(/^Permissions/).fill('reports:read, ')
      expect(await suggestions('edit-key-permissions')).toEqual(['reports:read, reports:write'])
      await dialog.getByRole('button', { name: 'Cancel' }).click()
    })

    it("shows a refusal of a key's policies inside the policies dialog, which stays open", async () => {
      await page.getByRole('button', { name: 'Policies…' }).click()
      const dialog = page.getByRole('dialog', { name: /^Policies of / })
      await dialog.getByLabel(/^IP allowlist/).fill('10.0.0.1/8')
      await dialog.getByRole('button', { name: 'Save policies' }).click()
      await expect.poll(() => dialog.getByRole('alert').textContent()).toMatch(/host bits are set/)
      await record('policies-refused')
      // Metadata that is not JSON is refused in the dialog too, and the server's refusal is gone.
      await dialog.getByLabel(/^IP allowlist/).fill('')
      await dialog.getByLabel(/^Metadata/).fill('{plan')
      await dialog.getByRole('button', { name: 'Save policies' }).click()
      await expect
        .poll(() => dialog.getByRole('alert').textContent())
        .toBe('Metadata should be a JSON object, e.g. {"plan": "pro"}.')
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      expect(await page.getByRole('alert').count()).toBe(0)
    })

    it('sets the balance of a key without a limit by default; adding is refused in plain words, cleared by another choice', async () => {
      await page.getByRole('link', { name: /^← API keys of/ }).click()
      await page.getByRole('link', { name: 'default', exact: true }).click()
      await page.getByRole('button', { name: 'Credits…' }).click()
      const dialog = page.getByRole('dialog', { name: /^Credits of / })
      const choice = dialog.getByLabel('Change', { exact: true })
      expect(await choice.inputValue()).toBe('set')
      // It is unlimited already: nothing offers to make it so.
      expect(await dialog.getByRole('button', { name: 'Make unlimited' }).count()).toBe(0)
      await record('credits-unlimited')
      await choice.selectOption({ label: 'Add credits' })
      await dialog.getByLabel('Credits', { exact: true }).fill('10')
      await dialog.getByRole('button', { name: 'Add', exact: true }).click()
      const alert = dialog.getByRole('alert')
      await expect
        .poll(() => alert.textContent())
        .toBe(
          'This key has unlimited credits: nothing can be added or subtracted. Choose “Set the balance” to give it a limit first.',
        )
      await record('credits-refused')
      await choice.selectOption({ label: 'Subtract credits' })
      expect(await alert.textContent()).toBe('')
      await choice.selectOption({ label: 'Set the balance' })
      await dialog.getByLabel('New balance').fill('100')
      await dialog.getByRole('button', { name: 'Set balance', exact: true }).click()
      await page.getByRole('status').filter({ hasText: 'Credits of' }).waitFor()
      expect(await page.getByRole('status').textContent()).toMatch(/^Credits of ak_.{5}\.\.\.: 100\.$/)
    })

    it('has no serious accessibility violation', () => {
      expect(violations.size).toBe(3 * 8)
      expect(Object.fromEntries([...violations].filter(([, found]) => found.length > 0))).toEqual({})
    })
  },
)
