// The console's webhooks pages in a real browser (Debian's Chromium, driven by Playwright),
// against the built reference server on embedded PGlite, its deliveries going to a receiver of the
// test's own on a local port: the developer's endpoints (one failing), an endpoint added (its
// signing secret shown once, and never again), edited, tested, an event delivered for real (its
// signature verified with the secret shown) and redelivered, a time range redelivered and one of
// more than 30 days refused in the API's words, the secret rolled (both secrets sign during the
// grace period), and the endpoint deleted. Each state is checked with axe-core and for its layout
// at a desktop and a phone size in both colour schemes.

import { createServer, type Server } from 'node:http'
import { signWebhook } from '@keyward/webhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM_BIN, patchBodyOf } from './browser.js'
import { consoleSuite } from './console-suite.js'

/** A delivery the receiver got: its Standard Webhooks headers and its body. */
interface Received {
  readonly id: string
  readonly timestamp: string
  readonly signatures: readonly string[]
  readonly body: string
}

/** Whether `secret` signed `delivery` (one of its signatures is the one `secret` makes). */
const signedBy = (delivery: Received, secret: string) =>
  delivery.signatures.includes(
    signWebhook([secret], delivery.id, new Date(Number(delivery.timestamp) * 1000), delivery.body)[
      'webhook-signature'
    ]!,
  )

/** Endpoints of the kind a developer has: filtered to a few types, to a project, or taking all. */
const SEEDED = [
  {
    // Port 9 (discard) has no listener here: its deliveries fail, and it shows as failing.
    url: 'http://127.0.0.1:9/billing/keyward-events',
    description: 'Billing service: suspends accounts whose keys leak (staging, eu-west-1)',
    event_types: ['key.revoked', 'key.leaked', 'ratelimit.exceeded'],
  },
  { url: 'http://127.0.0.1:9/audit-sink', description: null, event_types: ['key.expiring', 'key.expired'] },
]

describe.skipIf(!CHROMIUM_BIN)('the console’s webhooks in a real browser (install chromium to run)', () => {
  const received: Received[] = []
  let receiver: Server
  let receiverUrl = ''
  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let body = ''
      request.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk
      })
      request.on('end', () => {
        received.push({
          id: String(request.headers['webhook-id']),
          timestamp: String(request.headers['webhook-timestamp']),
          signatures: String(request.headers['webhook-signature']).split(' '),
          body,
        })
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}')
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`
  })
  afterAll(() => new Promise((resolve) => receiver.close(resolve)))

  const suite = consoleSuite('keyward-console-webhooks-', {
    env: { KEYWARD_WEBHOOKS_ALLOW_HTTP: '1', KEYWARD_WEBHOOKS_ALLOW_PRIVATE: '1' },
    seed: async ({ api, projectId }) => {
      for (const [i, endpoint] of SEEDED.entries()) {
        const created = await api('/webhooks/endpoints', {
          method: 'POST',
          body: { ...endpoint, ...(i === 0 ? { project_ids: [projectId] } : {}) },
        })
        expect(created.status).toBe(201)
      }
      // An event the failing endpoint takes: its delivery fails.
      const key = await api(`/projects/${projectId}/api-keys`, { method: 'POST', body: { name: 'ci' } })
      expect((await api(`/projects/${projectId}/api-keys/${key.body.id}`, { method: 'DELETE' })).status).toBe(
        200,
      )
    },
  })
  const { api, record, facts, sent } = suite

  let endpointId = ''
  let secret = ''
  const rows = () => suite.page.getByRole('table', { name: 'Webhook endpoints' }).locator('tbody tr')
  const attempts = () => suite.page.getByRole('table', { name: 'Delivery attempts' }).locator('tbody tr')
  /** The log's rows as text, read again ("Refresh") until `check` holds. */
  const logUntil = async (check: (texts: string[]) => boolean) => {
    await expect
      .poll(
        async () => {
          await suite.page.getByRole('button', { name: 'Refresh' }).click()
          await suite.page.waitForLoadState('networkidle')
          return check((await attempts().allInnerTexts()).map((text) => text.replace(/\s+/g, ' ')))
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe(true)
  }
  const deliveriesOf = (type: string) =>
    received.filter((delivery) => JSON.parse(delivery.body).type === type)

  it("lists the developer's endpoints from the navigation: each one's status and filters, a failing one as failing", async () => {
    await suite.page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Webhooks' })
      .click()
    await suite.page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor()
    await expect.poll(() => rows().count()).toBe(SEEDED.length)
    // The seeded key's revocation fails to reach port 9: the billing endpoint fails since then.
    await expect
      .poll(
        async () => {
          await suite.page.reload()
          await rows().first().waitFor()
          return (await rows().first().allInnerTexts()).join(' ').replace(/\s+/g, ' ')
        },
        { timeout: 20_000, interval: 500 },
      )
      .toMatch(
        /^http:\/\/127\.0\.0\.1:9\/billing\/keyward-events Billing service.* Failing Shop key\.revoked \+2 more \S/,
      )
    expect((await rows().nth(1).allInnerTexts()).join(' ').replace(/\s+/g, ' ')).toMatch(
      /^http:\/\/127\.0\.0\.1:9\/audit-sink — Enabled every project key\.expiring \+1 more —$/,
    )
    await record('webhooks')
  })

  it('adds an endpoint: its signing secret is shown once, in a dialog, and never again', async () => {
    await suite.page.getByRole('button', { name: 'Add endpoint…' }).click()
    const dialog = suite.page.getByRole('dialog', { name: 'Add a webhook endpoint' })
    // The focus is in the dialog, on its first field.
    await expect.poll(() => suite.page.evaluate(() => document.activeElement?.id)).toBe('new-endpoint-url')
    await dialog.getByRole('button', { name: 'Add endpoint' }).click()
    await expect
      .poll(() => dialog.getByRole('alert').textContent())
      .toBe('URL: give the address deliveries go to.')
    await dialog.getByLabel(/^URL/).fill(receiverUrl)
    await dialog.getByLabel(/^Description/).fill('Keys audit (local receiver)')
    await dialog
      .getByRole('group', { name: /^Projects/ })
      .getByLabel('Shop')
      .check()
    const types = dialog.getByRole('group', { name: /^Event types/ })
    await types.getByLabel(/^key\.created/).check()
    await types.getByLabel(/^key\.revoked/).check()
    await record('webhook-create')
    await dialog.getByRole('button', { name: 'Add endpoint' }).click()

    const shown = suite.page.getByRole('dialog', { name: 'Signing secret of the new endpoint' })
    secret = await shown.getByLabel('The signing secret').inputValue()
    expect(secret).toMatch(/^whsec_/)
    await expect.poll(() => suite.page.evaluate(() => document.activeElement?.id)).toBe('webhook-secret')
    await record('webhook-secret')
    await shown.getByRole('button', { name: 'I have stored it' }).click()
    await expect.poll(() => rows().count()).toBe(SEEDED.length + 1)
    expect(await suite.page.content()).not.toContain(secret)
    expect(sent.filter((body) => body.method === 'post').at(-1)?.body).toEqual({
      url: receiverUrl,
      description: 'Keys audit (local receiver)',
      project_ids: [suite.projectId],
      event_types: ['key.created', 'key.revoked'],
    })
    const listed = (await api('/webhooks/endpoints')).body.endpoints
    endpointId = listed.find((endpoint: { url: string }) => endpoint.url === receiverUrl).id
    expect(JSON.stringify(listed)).not.toContain(secret)
  })

  it("delivers a real event, signed with the secret shown, and the endpoint's page logs it", async () => {
    const key = await api(`/projects/${suite.projectId}/api-keys`, {
      method: 'POST',
      body: { name: 'webhooks' },
    })
    expect(key.status).toBe(201)
    await expect.poll(() => deliveriesOf('key.created').length, { timeout: 20_000 }).toBe(1)
    const [delivery] = deliveriesOf('key.created')
    expect(signedBy(delivery!, secret)).toBe(true)
    expect(JSON.parse(delivery!.body).data.key_id).toBe(key.body.id)

    await rows().filter({ hasText: receiverUrl }).getByRole('link').click()
    await suite.page.getByRole('heading', { level: 1, name: 'Keys audit (local receiver)' }).waitFor()
    expect(await facts()).toContain(`URL${receiverUrl}`)
    await expect.poll(facts).toContain('ProjectsShop')
    expect(await facts()).toContain('Event typeskey.created, key.revoked')
    await logUntil((texts) =>
      texts.some((text) => /^\S.* key\.created 200: delivered \d+ ms \{"received":true\}/.test(text)),
    )
    expect(await suite.page.content()).not.toContain(secret)
    await record('webhook-endpoint')
  })

  it('edits the endpoint: only what changed is sent', async () => {
    await suite.page.getByRole('button', { name: 'Edit…' }).click()
    const dialog = suite.page.getByRole('dialog', { name: 'Edit the webhook endpoint' })
    await dialog.getByLabel(/^Description/).fill('Keys audit')
    await dialog
      .getByRole('group', { name: /^Event types/ })
      .getByLabel(/^key\.revoked/)
      .uncheck()
    const body = await patchBodyOf(suite.page, () =>
      dialog.getByRole('button', { name: 'Save endpoint' }).click(),
    )
    expect(body).toEqual({ description: 'Keys audit', event_types: ['key.created'] })
    await suite.page.getByRole('status').filter({ hasText: 'Saved the endpoint.' }).waitFor()
    await expect.poll(facts).toContain('Event typeskey.created')
    expect((await api(`/webhooks/endpoints/${endpointId}`)).body.event_types).toEqual(['key.created'])
  })

  it('sends a test event, and redelivers an event of the log: the receiver gets it again', async () => {
    await suite.page.getByRole('button', { name: 'Send test event' }).click()
    await suite.page
      .getByRole('status')
      .filter({ hasText: /^Sent a test event: / })
      .waitFor()
    await expect.poll(() => deliveriesOf('webhook.test').length, { timeout: 20_000 }).toBe(1)
    await logUntil((texts) => texts.some((text) => text.includes('webhook.test 200: delivered')))

    const first = deliveriesOf('key.created')[0]!
    await attempts()
      .filter({ hasText: 'key.created' })
      .first()
      .getByRole('button', { name: /^Redeliver/ })
      .click()
    await suite.page
      .getByRole('status')
      .filter({ hasText: /^The event is due again: / })
      .waitFor()
    await expect
      .poll(() => received.filter((delivery) => delivery.id === first.id).length, { timeout: 20_000 })
      .toBe(2)
    await logUntil(
      (texts) => texts.filter((text) => text.includes('key.created 200: delivered')).length === 2,
    )
  })

  it("redelivers a time range, and says the API's refusal of one of more than 30 days", async () => {
    const local = (ms: number) => {
      const at = new Date(Date.now() + ms)
      return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)
    }
    await suite.page.getByLabel('From (your time zone)').fill(local(-40 * 86_400_000))
    await suite.page.getByLabel('To', { exact: true }).fill(local(60_000))
    await suite.page.getByRole('button', { name: 'Redeliver range' }).click()
    await expect
      .poll(() => suite.page.getByRole('alert').textContent())
      .toBe('Error: Expected a range of at most 30 days: the delivery log keeps 30 days.')
    await record('webhook-redeliver-refused')

    const before = received.length
    await suite.page.getByLabel('From (your time zone)').fill(local(-3_600_000))
    await suite.page.getByRole('button', { name: 'Redeliver range' }).click()
    // The events of the last hour that the endpoint takes now: the keys created in "Shop" (its
    // default key, "ci" and "webhooks", the first two before the endpoint was added), and the test
    // event sent to it.
    await suite.page
      .getByRole('status')
      .filter({ hasText: /^4 events of the range are due again/ })
      .waitFor()
    await expect.poll(() => received.length, { timeout: 20_000 }).toBe(before + 4)
    expect(received.slice(before).every((delivery) => signedBy(delivery, secret))).toBe(true)
  })

  it('rolls the secret with a grace period: the new one shown once, and both sign meanwhile', async () => {
    await suite.page.getByRole('button', { name: 'Roll secret…' }).click()
    const dialog = suite.page.getByRole('dialog', { name: 'Roll the signing secret' })
    await dialog.getByLabel('Grace period').selectOption({ label: '1 hour' })
    await dialog.getByRole('button', { name: 'Roll secret' }).click()
    const shown = suite.page.getByRole('dialog', { name: 'The new signing secret' })
    const rolled = await shown.getByLabel('The signing secret').inputValue()
    expect(rolled).toMatch(/^whsec_/)
    expect(rolled).not.toBe(secret)
    await expect.poll(() => shown.textContent()).toMatch(/The previous secret signs too until /)
    await shown.getByRole('button', { name: 'I have stored it' }).click()
    expect(await suite.page.content()).not.toContain(rolled)
    await expect.poll(facts).toMatch(/Previous secretsigns too until /)

    const tests = deliveriesOf('webhook.test').length
    await suite.page.getByRole('button', { name: 'Send test event' }).click()
    await expect.poll(() => deliveriesOf('webhook.test').length, { timeout: 20_000 }).toBe(tests + 1)
    const latest = deliveriesOf('webhook.test').at(-1)!
    expect(signedBy(latest, rolled)).toBe(true)
    expect(signedBy(latest, secret)).toBe(true)
  })

  it('deletes the endpoint after asking', async () => {
    await suite.page.getByRole('button', { name: 'Delete…' }).click()
    const dialog = suite.page.getByRole('dialog', { name: 'Delete the webhook endpoint' })
    await record('webhook-delete')
    await dialog.getByRole('button', { name: 'Delete endpoint' }).click()
    await suite.page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor()
    await expect.poll(() => rows().count()).toBe(SEEDED.length)
    expect((await api(`/webhooks/endpoints/${endpointId}`)).status).toBe(404)
    await suite.page.goto(`${suite.base}/console/#/webhooks/${endpointId}`)
    await suite.page.getByText(/There is no such endpoint: it belongs to someone else/).waitFor()
  })

  it('sends only the body fields that the OpenAPI document lists', () => suite.expectDocumentedBodies())

  it('has no serious accessibility violation, no broken layout and breaks no Content-Security-Policy rule', () => {
    suite.expectNoFindings(6)
  })
})
