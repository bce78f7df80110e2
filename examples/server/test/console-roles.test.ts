// The console's roles page in a real browser (Debian's Chromium, driven by Playwright), against
// the built reference server on embedded PGlite: a project's roles (the empty state, creation,
// editing, deletion refused while keys hold a role and then detached), and a key's roles (given at
// creation, on its page and in the list). The page is checked with axe-core and for its layout,
// with realistic data, and photographed at a desktop and a phone size.

import { describe, expect, it } from 'vitest'
import { CHROMIUM_BIN } from './browser.js'
import { consoleSuite } from './console-suite.js'

/** Roles of the kind a team declares, over the server's permissions and wildcards. */
const ROLES = [
  { name: 'read-only', permissions: [] },
  { name: 'generations-admin', permissions: ['generations:*'] },
  { name: 'ci-pipeline:nightly-exports-eu-west-1', permissions: ['generations:write'] },
  { name: 'superuser', permissions: ['*'] },
  { name: 'cleanup', permissions: ['generations:delete', 'generations:write'] },
]

describe.skipIf(!CHROMIUM_BIN)('the console’s roles in a real browser (install chromium to run)', () => {
  const suite = consoleSuite('keyward-console-roles-', {
    seed: async ({ api, projectId }) => {
      for (const role of ROLES) {
        expect((await api(`/projects/${projectId}/roles`, { method: 'POST', body: role })).status).toBe(201)
      }
    },
  })
  const { api, record, facts, sent } = suite
  const rolesPath = () => `/projects/${suite.projectId}/roles`
  const openRoles = async () => {
    await suite.page.goto(`${suite.base}/console/#/projects/${suite.projectId}/roles`)
    await suite.page.getByRole('heading', { level: 1, name: '“Shop”' }).waitFor()
  }
  const rows = () => suite.page.getByRole('table', { name: 'Roles' }).locator('tbody tr')
  /** The button of a role's row whose words start with `action` ("Edit", "Delete"). */
  const roleButton = (name: string, action: string) =>
    rows()
      .filter({ has: suite.page.getByRole('cell', { name, exact: true }) })
      .getByRole('button', { name: new RegExp(`^${action}`) })

  it('says what to do on a project without roles, and lists the roles of a project', async () => {
    const empty = await api('/projects', { method: 'POST', body: { name: 'Empty' } })
    await suite.page.goto(`${suite.base}/console/#/projects/${empty.body.project.id}`)
    await suite.page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Roles' }).click()
    await suite.page.getByText(/^No roles yet: name one above/).waitFor()
    await record('roles-empty')

    await openRoles()
    await expect.poll(() => rows().count()).toBe(ROLES.length)
    const texts = (await rows().allInnerTexts()).map((text) => text.replace(/\s+/g, ' '))
    // Newest first, each with its permissions in one line and when it last changed.
    expect(texts[0]).toMatch(/^cleanup generations:delete, generations:write \S/)
    expect(texts[1]).toMatch(/^superuser \* \S/)
    expect(texts.at(-1)).toMatch(/^read-only none \S/)
    await record('roles')
  })

  it('creates a role with a wildcard, and refuses an undeclared permission in plain words', async () => {
    await suite.page.getByLabel('Name of the new role').fill('billing')
    await suite.page.getByLabel(/^Its permissions/).fill('generations:wrong')
    await suite.page.getByRole('button', { name: 'Create role' }).click()
    await expect
      .poll(() => suite.page.getByRole('alert').textContent())
      .toMatch(/^Error: .*generations:wrong/)
    expect((await api(rolesPath())).body.roles).toHaveLength(ROLES.length)
    await suite.page.getByLabel(/^Its permissions/).fill('generations:*')
    await suite.page.getByRole('button', { name: 'Create role' }).click()
    await suite.page.getByRole('status').filter({ hasText: 'Created the role “billing”.' }).waitFor()
    await expect
      .poll(async () => (await rows().first().allInnerTexts()).join(' ').replace(/\s+/g, ' '))
      .toMatch(/^billing generations:\* /)
    // A second role of the same name is refused.
    await suite.page.getByLabel('Name of the new role').fill('billing')
    await suite.page.getByRole('button', { name: 'Create role' }).click()
    await expect
      .poll(() => suite.page.getByRole('alert').textContent())
      .toBe('Error: The project has a role “billing” already: edit it in the list below.')
  })

  it('edits a role: only what changed is sent', async () => {
    await roleButton('read-only', 'Edit').click()
    const dialog = suite.page.getByRole('dialog', { name: 'Role “read-only”' })
    await dialog.getByLabel(/^Its permissions/).fill('generations:write')
    await record('role-edit')
    await dialog.getByRole('button', { name: 'Save role' }).click()
    await suite.page.getByRole('status').filter({ hasText: 'Updated the role “read-only”.' }).waitFor()
    const patch = sent.filter((body) => body.method === 'patch').at(-1)
    expect(patch?.body).toEqual({ permissions: ['generations:write'] })
  })

  it('gives a role to a key at its creation and on its page, which shows it, as the list does', async () => {
    await suite.page.goto(`${suite.base}/console/#/projects/${suite.projectId}`)
    await suite.page.getByLabel('Name of the new API key').fill('invoicing')
    await suite.page.getByText('Access policies (optional)').click()
    await suite.page.getByLabel(/^Roles/).fill('billing')
    await suite.page.getByRole('button', { name: 'Create API key' }).click()
    const invoicing = async () =>
      (await api(`/projects/${suite.projectId}/api-keys?q=invoicing`)).body.keys[0]
    await expect.poll(invoicing).toBeDefined()
    const key = await invoicing()
    expect(key.roles).toEqual(['billing'])
    const row = suite.page.getByRole('row').filter({ hasText: 'invoicing' })
    await expect
      .poll(async () => (await row.allInnerTexts()).join(' ').replace(/\s+/g, ' '))
      .toContain('billing')

    await suite.page.goto(`${suite.base}/console/#/projects/${suite.projectId}/keys/${key.id}`)
    await suite.page.getByRole('heading', { level: 1, name: /^invoicing ak_/ }).waitFor()
    await expect.poll(facts).toContain('Rolesbilling')
    await suite.page.getByRole('button', { name: 'Policies…' }).click()
    const dialog = suite.page.getByRole('dialog', { name: /^Policies of ak_/ })
    await dialog.getByLabel(/^Roles/).fill('billing, superuser')
    await dialog.getByRole('button', { name: 'Save policies' }).click()
    await expect.poll(facts).toContain('Rolesbilling, superuser')
    expect((await api(`/projects/${suite.projectId}/api-keys/${key.id}`)).body.roles).toEqual([
      'billing',
      'superuser',
    ])
  })

  it('deletes a role that a key holds: refused with how many, then detached and deleted', async () => {
    await openRoles()
    await roleButton('billing', 'Delete').click()
    const dialog = suite.page.getByRole('dialog', { name: 'Delete the role “billing”' })
    await dialog.getByRole('button', { name: 'Delete role' }).click()
    await expect
      .poll(() => dialog.getByRole('alert').textContent())
      .toMatch(/^1 key holds this role: detach it/)
    await record('role-delete')
    await dialog.getByRole('button', { name: 'Detach and delete' }).click()
    await suite.page
      .getByRole('status')
      .filter({ hasText: 'Deleted the role “billing” and took it from 1 key.' })
      .waitFor()
    const key = (await api(`/projects/${suite.projectId}/api-keys?q=invoicing`)).body.keys[0]
    expect(key.roles).toEqual(['superuser'])
    // The list reloads after the status line shows: its row goes a moment later.
    await expect
      .poll(async () => (await rows().allInnerTexts()).some((text) => text.startsWith('billing')))
      .toBe(false)
  })

  it('sends only the body fields that the OpenAPI document lists', () => suite.expectDocumentedBodies())

  it('has no serious accessibility violation, no broken layout and breaks no Content-Security-Policy rule', () => {
    suite.expectNoFindings(4)
  })
})
