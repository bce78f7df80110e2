// The console's identities pages in a real browser (Debian's Chromium, driven by Playwright),
// against the built reference server on embedded PGlite: a project's identities (creation, the
// list, the lookup by external id), an identity's page (its limits edited, its keys, its usage, its
// changes, its deletion with its keys revoked) and a key's identity. Each page is checked with
// axe-core and for its layout, with realistic data, and photographed at a desktop and a phone size.

import { describe, expect, it } from 'vitest'
import { CHROMIUM_BIN, patchBodyOf } from './browser.js'
import { consoleSuite } from './console-suite.js'

/** Identities of the kind a customer base has: ids of a billing system, of an auth service, UUIDs. */
const CUSTOMERS = [
  'cus_NffrFeUfNV2Hib',
  'tenant:initech/prod',
  '7d9c2e4a-51b8-4f3e-9a6d-0c8b1e2f3a4d',
  'customer_globex-eu-west',
  'org_2Xk9pQmL4vRtY8wZ3nB7cD1eF',
  'acct_1OaBcDeFgHiJkLmN',
]

/** Metadata as a host keeps it of a customer. */
const METADATA = {
  plan: 'enterprise',
  region: 'eu-west-1',
  billing_email: 'accounts-payable@acme-corporation.example',
  seats: 250,
  tags: ['priority', 'gdpr', 'sso', 'annual-contract'],
  account_manager: 'Jordan Smith',
  notes: 'Renewal due in March; ask before lowering limits.',
}

/** Five named limits, the most an identity carries. */
const LIMITS = [
  { name: 'requests', limit: 100, duration: 1_000 },
  { name: 'burst', limit: 20, duration: 10_000 },
  { name: 'uploads:hourly', limit: 500, duration: 3_600_000 },
  { name: 'tokens.daily', limit: 1_000_000, duration: 86_400_000 },
  { name: 'exports', limit: 5, duration: 60_000 },
]

describe.skipIf(!CHROMIUM_BIN)('the console’s identities in a real browser (install chromium to run)', () => {
  const suite = consoleSuite('keyward-console-identities-', {
    env: { KEYWARD_USAGE_FLUSH_SECONDS: '1' },
    seed: async ({ api, projectId }) => {
      // Customers with metadata, up to five limits and a pool, and keys of one of them.
      for (const [i, externalId] of CUSTOMERS.entries()) {
        const identity = await api(`/projects/${projectId}/identities`, {
          method: 'POST',
          body: {
            external_id: externalId,
            metadata: METADATA,
            ratelimits: LIMITS.slice(0, 1 + (i % LIMITS.length)),
            ...(i % 2 === 0
              ? { remaining: 1_500, refill: { amount: 2_000, interval: 'monthly', day: 1 } }
              : {}),
          },
        })
        expect(identity.status).toBe(201)
        for (const name of i === 4 ? ['production (eu-west-1)', 'staging', 'ci: nightly exports'] : []) {
          const key = await api(`/projects/${projectId}/api-keys`, {
            method: 'POST',
            body: { name, identity_id: identity.body.id },
          })
          expect(key.status).toBe(201)
        }
      }
    },
  })
  const { api, record, facts, sent } = suite
  const identitiesPath = () => `/projects/${suite.projectId}/identities`
  /** The identity of an external id, as the API finds it. */
  const identityOf = async (externalId: string) =>
    (await api(`${identitiesPath()}?external_id=${encodeURIComponent(externalId)}`)).body.identities[0]

  const openIdentities = async () => {
    await suite.page.goto(`${suite.base}/console/#/projects/${suite.projectId}/identities`)
    await suite.page.getByRole('heading', { level: 1, name: '“Shop”' }).waitFor()
  }

  it("says what to do on a project without identities, and lists a project's identities with their pools and limits", async () => {
    const empty = await api('/projects', { method: 'POST', body: { name: 'Empty' } })
    await suite.page.goto(`${suite.base}/console/#/projects/${empty.body.project.id}`)
    await suite.page
      .getByRole('navigation', { name: 'Project' })
      .getByRole('link', { name: 'Identities' })
      .click()
    await suite.page
      .getByText('No identities yet: give the external id of a customer above and create one.')
      .waitFor()

    await openIdentities()
    const table = suite.page.getByRole('table', { name: 'Identities' })
    await expect.poll(() => table.getByRole('row').count()).toBe(CUSTOMERS.length + 1)
    const rowText = async (row: number) =>
      (await table.getByRole('row').nth(row).allInnerTexts()).join(' ').replace(/\s+/g, ' ')
    // Newest first: the last customer created, with one limit and no pool.
    expect(await rowText(1)).toMatch(/^acct_1OaBcDeFgHiJkLmN no pool requests: 100 per second \S/)
    const oldest = await rowText(-1)
    expect(oldest).toMatch(
      /^cus_NffrFeUfNV2Hib 1500, refills to 2000 monthly on day 1 requests: 100 per second \S/,
    )
    const all = await rowText(2)
    expect(all).toMatch(
      /^org_2Xk9pQmL4vRtY8wZ3nB7cD1eF 1500, refills to 2000 monthly on day 1 requests: 100 per second \+4 more \S/,
    )
    await record('identities')
  })

  it('creates an identity with metadata, a rate limit and a credit pool, and sees it in the list', async () => {
    await suite.page.getByLabel('External id of the new identity').fill('customer_acme')
    await suite.page.getByText('Metadata, rate limits and credits (optional)').click()
    await suite.page.getByLabel(/^Metadata/).fill('{"plan": "pro"}')
    await suite.page.getByRole('button', { name: 'Add a limit' }).click()
    const limit = suite.page.getByRole('group', { name: 'Limit 1' })
    await limit.getByLabel('Name').fill('requests')
    await limit.getByLabel('Requests').fill('10')
    await limit.getByLabel('Per').fill('1')
    await limit.getByLabel('Unit').selectOption({ label: 'seconds' })
    await suite.page.getByLabel('Credits (empty: no pool)').fill('100')
    await suite.page.getByLabel('Refill rule').selectOption({ label: 'Daily, at 00:00 UTC' })
    await suite.page.getByLabel('Refill up to (credits)').fill('100')
    await record('identity-create')
    await suite.page.getByRole('button', { name: 'Create identity' }).click()
    await suite.page
      .getByRole('status')
      .filter({ hasText: 'Created the identity “customer_acme”.' })
      .waitFor()
    const row = suite.page.getByRole('row').filter({ hasText: 'customer_acme' })
    await expect
      .poll(async () => (await row.allInnerTexts()).join(' '))
      .toMatch(/100, refills to 100 daily\s+requests: 10 per second/)
    expect(await identityOf('customer_acme')).toMatchObject({
      external_id: 'customer_acme',
      metadata: { plan: 'pro' },
      ratelimits: [{ name: 'requests', limit: 10, duration: 1000 }],
      remaining: 100,
      refill: { amount: 100, interval: 'daily' },
    })
    // The form is empty again; a second identity of the same id is refused in the server's words.
    expect(await suite.page.getByLabel('External id of the new identity').inputValue()).toBe('')
    await suite.page.getByLabel('External id of the new identity').fill('customer_acme')
    await suite.page.getByRole('button', { name: 'Create identity' }).click()
    await expect
      .poll(() => suite.page.getByRole('alert').textContent())
      .toBe('Error: The project has an identity “customer_acme” already: find it by its external id below.')
    // A limit the server refuses is named by its row.
    await suite.page.getByLabel('External id of the new identity').fill('customer_initech')
    await suite.page.getByRole('button', { name: 'Add a limit' }).click()
    await limit.getByLabel('Name').fill('per second!')
    await limit.getByLabel('Requests').fill('10')
    await suite.page.getByRole('button', { name: 'Create identity' }).click()
    await expect
      .poll(() => suite.page.getByRole('alert').textContent())
      .toMatch(/^Error: Limit 1, name: A rate limit name/)
    expect(await identityOf('customer_initech')).toBeUndefined()
  })

  it('finds identities by a part of their external id (the server searches), the address keeping the search', async () => {
    await openIdentities()
    const rows = () =>
      suite.page.getByRole('table', { name: 'Identities' }).locator('tbody tr').allInnerTexts()
    const searched: string[] = []
    const listen = (request: { url(): string }) => {
      const url = new URL(request.url())
      if (url.pathname.endsWith('/identities')) searched.push(url.searchParams.get('q') ?? '')
    }
    suite.page.on('request', listen)
    await suite.page.getByLabel('Find identities by external id').fill('INITECH/PROD')
    await suite.page.getByRole('button', { name: 'Find', exact: true }).click()
    await expect
      .poll(() => suite.page.evaluate(() => location.hash))
      .toBe(`#/projects/${suite.projectId}/identities?q=INITECH%2FPROD`)
    await expect
      .poll(async () => (await rows()).map((row) => row.split(/\s/)[0]))
      .toEqual(['tenant:initech/prod'])
    // The server searched: the page asked for `?q=`, and shows what the API answers.
    expect(searched).toContain('INITECH/PROD')
    const answer = await api(`${identitiesPath()}?q=${encodeURIComponent('INITECH/PROD')}`)
    expect(answer.body.identities.map((identity: { external_id: string }) => identity.external_id)).toEqual([
      'tenant:initech/prod',
    ])
    // A link to the search opens it: the page loaded anew finds the same identity.
    await suite.page.reload()
    await expect.poll(async () => (await rows()).length).toBe(1)
    expect(await suite.page.getByLabel('Find identities by external id').inputValue()).toBe('INITECH/PROD')
    suite.page.off('request', listen)
    await suite.page.getByLabel('Find identities by external id').fill('nobody')
    await suite.page.getByRole('button', { name: 'Find', exact: true }).click()
    await suite.page.getByText('No identity’s external id contains “nobody”.').waitFor()
    await suite.page.getByRole('link', { name: 'Show every identity' }).click()
    await expect.poll(async () => (await rows()).length).toBe(CUSTOMERS.length + 1)
  })

  it("opens an identity's page and edits a rate limit: only the limits are sent, and the server applies them", async () => {
    await suite.page.getByLabel('Find identities by external id').fill('customer_acme')
    await suite.page.getByRole('button', { name: 'Find', exact: true }).click()
    await suite.page.getByRole('link', { name: 'customer_acme', exact: true }).click()
    await suite.page.getByRole('heading', { level: 1, name: 'customer_acme' }).waitFor()
    const before = await identityOf('customer_acme')
    await expect.poll(facts).toContain('Credit pool100, refills to 100 daily')
    expect(await facts()).toContain('Rate limitsrequests: 10 per second')
    expect(await facts()).toContain(`Id${before.id}`)
    await suite.page.getByRole('button', { name: 'Limits and metadata…' }).click()
    const dialog = suite.page.getByRole('dialog', { name: 'Limits and metadata of “customer_acme”' })
    const limit = dialog.getByRole('group', { name: 'Limit 1' })
    expect(await limit.getByLabel('Name').inputValue()).toBe('requests')
    expect(await dialog.getByLabel(/^Metadata/).inputValue()).toBe('{"plan":"pro"}')
    await limit.getByLabel('Requests').fill('600')
    await limit.getByLabel('Unit').selectOption({ label: 'minutes' })
    await record('identity-edit')
    const save = () => dialog.getByRole('button', { name: 'Save' }).click()
    expect(await patchBodyOf(suite.page, save)).toEqual({
      ratelimits: [{ name: 'requests', limit: 600, duration: 60_000 }],
    })
    await suite.page
      .getByRole('status')
      .filter({ hasText: 'Updated the identity “customer_acme”.' })
      .waitFor()
    await expect.poll(facts).toContain('Rate limitsrequests: 600 per minute')
    expect(await identityOf('customer_acme')).toMatchObject({
      ...before,
      ratelimits: [{ name: 'requests', limit: 600, duration: 60_000 }],
      updated_at: expect.any(String),
    })
    // The change is the newest of the identity's changes, which hold only its rows.
    const changes = suite.page.getByRole('table', { name: 'Changes of this identity' })
    await expect
      .poll(async () => (await changes.locator('tbody tr').first().allInnerTexts()).join(' '))
      .toMatch(/^just now\s+Identity changed/)
    const { entries } = (await api(`/audit?identity_id=${before.id}`)).body
    expect(entries.map((entry: { action: string }) => entry.action)).toEqual([
      'identity.updated',
      'identity.created',
    ])
    expect(await changes.locator('tbody tr').count()).toBe(entries.length)
    // A window of more than a day is refused in the dialog, which stays open; nothing changes.
    await suite.page.getByRole('button', { name: 'Limits and metadata…' }).click()
    await limit.getByLabel('Per').fill('2')
    await limit.getByLabel('Unit').selectOption({ label: 'days' })
    await dialog.getByRole('button', { name: 'Save' }).click()
    await expect.poll(() => dialog.getByRole('alert').textContent()).toMatch(/^Limit 1, window: /)
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    expect((await identityOf('customer_acme')).ratelimits).toEqual([
      { name: 'requests', limit: 600, duration: 60_000 },
    ])
  })

  it("sets the pool's low-credits threshold from the identity's page: the server's refusal in the dialog, then set and removed", async () => {
    await suite.page.getByRole('heading', { level: 1, name: 'customer_acme' }).waitFor()
    await expect.poll(facts).toContain('Low creditsnone')
    await suite.page.getByRole('button', { name: 'Low-credits alert…' }).click()
    const dialog = suite.page.getByRole('dialog', { name: 'Low-credits alert of “customer_acme”' })
    const field = dialog.getByLabel(/^Low at/)
    const save = () => dialog.getByRole('button', { name: 'Save threshold' }).click()
    // Out of range: the server's words, in the dialog, and nothing changes.
    await field.fill('100%')
    await save()
    await expect
      .poll(() => dialog.getByRole('alert').textContent())
      .toMatch(/^Threshold: Expected an integer from 1 to 99/)
    expect((await identityOf('customer_acme')).credits_low_at ?? null).toBeNull()
    // The picture shows the refusal beside the value refused.
    await record('identity-low-at')
    await field.fill('10%')
    expect(await patchBodyOf(suite.page, save)).toEqual({ credits_low_at: { percent: 10 } })
    await suite.page
      .getByRole('status')
      .filter({ hasText: 'Low credits of “customer_acme”: at 10% of the refill (10 credits).' })
      .waitFor()
    await expect.poll(facts).toContain('Low creditsat 10% of the refill (10 credits)')
    expect((await identityOf('customer_acme')).credits_low_at).toEqual({ percent: 10 })
    await suite.page.getByRole('button', { name: 'Low-credits alert…' }).click()
    expect(await field.inputValue()).toBe('10%')
    const remove = () => dialog.getByRole('button', { name: 'Remove threshold' }).click()
    expect(await patchBodyOf(suite.page, remove)).toEqual({ credits_low_at: null })
    await expect.poll(facts).toContain('Low creditsnone')
    expect((await identityOf('customer_acme')).credits_low_at).toBeNull()
  })

  it("puts a key in the identity from the key's page, which links to it, and the identity lists it", async () => {
    const created = await api(`/projects/${suite.projectId}/api-keys`, {
      method: 'POST',
      body: { name: 'worker' },
    })
    const key = created.body as { id: string; key: string }
    await suite.page.goto(`${suite.base}/console/#/projects/${suite.projectId}/keys/${key.id}`)
    await suite.page.getByRole('heading', { level: 1, name: /^worker ak_/ }).waitFor()
    await expect.poll(facts).toContain('Identitynone')
    await suite.page.getByRole('button', { name: 'Identity…' }).click()
    const dialog = suite.page.getByRole('dialog', { name: /^Identity of ak_/ })
    await dialog.getByLabel('External id of the identity').fill('customer_nobody')
    await dialog.getByRole('button', { name: 'Set identity' }).click()
    await expect
      .poll(() => dialog.getByRole('alert').textContent())
      .toBe('The project has no identity “customer_nobody”. Create it on the project’s Identities tab first.')
    await dialog.getByLabel('External id of the identity').fill('customer_acme')
    await record('key-identity')
    await dialog.getByRole('button', { name: 'Set identity' }).click()
    await suite.page
      .getByRole('status')
      .filter({ hasText: 'now belongs to the identity “customer_acme”.' })
      .waitFor()
    const acme = await identityOf('customer_acme')
    const listed = await api(`/projects/${suite.projectId}/api-keys?q=worker`)
    expect(listed.body.keys[0].identity_id).toBe(acme.id)
    await expect.poll(facts).toContain('Identitycustomer_acme')

    // Its requests count for the identity: one accepted, charted on the identity's page.
    const verified = await fetch(`${suite.base}/api/v1/projects/${suite.projectId}/access-tokens`, {
      method: 'POST',
      headers: { 'x-api-key': key.key },
    })
    expect(verified.status).toBe(201)
    await expect
      .poll(
        async () => (await api(`${identitiesPath()}/${acme.id}/usage?granularity=hour`)).body.usage.length,
        { timeout: 15_000 },
      )
      .toBe(1)
    await suite.page.getByRole('link', { name: 'customer_acme', exact: true }).click()
    await suite.page.getByRole('heading', { level: 1, name: 'customer_acme' }).waitFor()
    const keys = suite.page.getByRole('table', { name: 'Keys of this identity' })
    await expect
      .poll(() => keys.locator('tbody tr').allInnerTexts())
      .toEqual([expect.stringMatching(/^worker\s+ak_/)])
    await expect
      .poll(() => suite.page.locator('.chart-legend').textContent())
      .toBe('Accepted (solid): 1Refused (dashed): 0')
    expect(
      await suite.page
        .getByRole('img', { name: /^Chart: 1 accepted and 0 refused verifications of this identity's keys/ })
        .count(),
    ).toBe(1)
  })

  it('shows the roles an identity holds, by name, and none once they are taken', async () => {
    const path = `/projects/${suite.projectId}/roles`
    for (const name of ['billing', 'reports-reader']) {
      expect((await api(path, { method: 'POST', body: { name, permissions: [] } })).status).toBe(201)
    }
    const created = await api(identitiesPath(), {
      method: 'POST',
      body: { external_id: 'customer_roles', roles: ['billing', 'reports-reader'] },
    })
    expect(created.status).toBe(201)
    await suite.page.goto(`${suite.base}/console/#/projects/${suite.projectId}/identities/${created.body.id}`)
    await expect.poll(facts).toContain('Rolesbilling, reports-reader')
    await api(`${identitiesPath()}/${created.body.id}`, { method: 'PATCH', body: { roles: null } })
    await suite.page.reload()
    await expect.poll(facts).toContain('Rolesnone')
  })

  it('takes a key out of its identity from its page', async () => {
    const created = await api(`/projects/${suite.projectId}/api-keys`, {
      method: 'POST',
      body: { name: 'leaver', external_id: 'customer_globex-eu-west' },
    })
    await suite.page.goto(`${suite.base}/console/#/projects/${suite.projectId}/keys/${created.body.id}`)
    await expect.poll(facts).toContain('Identitycustomer_globex-eu-west')
    await suite.page.getByRole('button', { name: 'Identity…' }).click()
    await suite.page.getByRole('button', { name: 'Remove from its identity' }).click()
    await suite.page.getByRole('status').filter({ hasText: 'no longer belongs to an identity.' }).waitFor()
    await expect.poll(facts).toContain('Identitynone')
    expect((await api(`/projects/${suite.projectId}/api-keys?q=leaver`)).body.keys[0].identity_id).toBeNull()
  })

  it('shows an identity with realistic data: every limit, its metadata, its keys', async () => {
    const identity = await identityOf(CUSTOMERS[4]!)
    await suite.page.goto(`${suite.base}/console/#/projects/${suite.projectId}/identities/${identity.id}`)
    await expect.poll(facts).toContain('tokens.daily: 1,000,000 per day')
    expect(await facts()).toContain('Rolesnone')
    expect(await facts()).toContain('"billing_email": "accounts-payable@acme-corporation.example"')
    expect(await facts()).toContain('Credit pool1500, refills to 2000 monthly on day 1')
    const keys = suite.page.getByRole('table', { name: 'Keys of this identity' })
    await expect.poll(() => keys.locator('tbody tr').count()).toBe(3)
    await suite.page.getByText('No verifications of this identity').waitFor()
    await record('identity')
  })

  it('works with the keyboard alone on an identity’s page: its dialog opened and closed', async () => {
    const focused = () =>
      suite.page.evaluate(() => {
        const element = document.activeElement!
        return {
          name: `${element.tagName.toLowerCase()} ${element.textContent?.trim() ?? ''}`,
          outline: getComputedStyle(element).outlineStyle,
          inDialog: element.closest('dialog') !== null,
        }
      })
    await suite.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
    for (let presses = 0; ; presses++) {
      expect(presses).toBeLessThan(40)
      await suite.page.keyboard.press('Tab')
      const now = await focused()
      expect(now.outline).not.toBe('none')
      if (now.name === 'button Limits and metadata…') break
    }
    await suite.page.keyboard.press('Enter')
    const dialog = suite.page.getByRole('dialog', { name: /^Limits and metadata of / })
    await dialog.waitFor()
    expect((await focused()).inDialog).toBe(true)
    await suite.page.keyboard.press('Escape')
    await expect.poll(() => dialog.count()).toBe(0)
  })

  it('deletes an identity: refused in plain words while it has keys, then deleted with them revoked', async () => {
    const acme = await identityOf('customer_acme')
    await suite.page.goto(`${suite.base}/console/#/projects/${suite.projectId}/identities/${acme.id}`)
    await suite.page.getByRole('heading', { level: 1, name: 'customer_acme' }).waitFor()
    await suite.page.getByRole('button', { name: 'Delete…' }).click()
    const dialog = suite.page.getByRole('dialog', { name: 'Delete “customer_acme”' })
    const revoke = dialog.getByLabel('Also revoke its 1 key')
    await revoke.waitFor()
    await dialog.getByRole('button', { name: 'Delete identity' }).click()
    await expect
      .poll(() => dialog.getByRole('alert').textContent())
      .toBe(
        'Keys still belong to this identity, and it is deleted only with them revoked: tick the box to revoke them with it, or first take each key out of it (“Identity…” on the key’s page).',
      )
    expect((await api(`${identitiesPath()}/${acme.id}`)).status).toBe(200)
    await revoke.check()
    await record('identity-delete')
    await dialog.getByRole('button', { name: 'Delete identity' }).click()
    await suite.page
      .getByRole('status')
      .filter({ hasText: 'Deleted the identity “customer_acme” and revoked its 1 key.' })
      .waitFor()
    expect((await api(`${identitiesPath()}/${acme.id}`)).status).toBe(404)
    const worker = (await api(`/projects/${suite.projectId}/api-keys?q=worker`)).body.keys[0]
    expect([worker.active, worker.identity_id]).toEqual([false, null])
    // Its address now says there is no such identity.
    await suite.page.reload()
    await suite.page
      .getByText(
        'There is no such identity: it was deleted, it belongs to another project, or the address is wrong.',
      )
      .waitFor()
  })

  it('sends only the body fields that the OpenAPI document lists', async () => {
    const paths = new Set(
      sent.map((request) => `${request.method} ${request.path.replace(/[0-9a-f-]{36}/g, '{id}')}`),
    )
    expect([...paths].sort()).toEqual([
      'patch /api/v1/projects/{id}/api-keys/{id}',
      'patch /api/v1/projects/{id}/identities/{id}',
      'post /api/v1/projects/{id}/identities',
    ])
    await suite.expectDocumentedBodies()
  })

  it('has no serious accessibility violation, no broken layout and breaks no Content-Security-Policy rule', () => {
    suite.expectNoFindings(7)
  })
})
