import { createKeyward, MemoryKeyStore } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import { EXIT } from '../exit.js'
import { harness, STORE } from '../test/harness.js'

// A public address as an IP literal: no name to resolve.
const URL = 'https://93.184.216.34/keyward'

// One store for every run (the webhooks live in it), and a service over it to arrange and check.
function world(env: Record<string, string> = {}) {
  const store = new MemoryKeyStore()
  const cli = harness({ store: () => store, env: { KEYWARD_OPERATOR: 'alice', ...env } })
  return {
    store,
    keyward: () => createKeyward({ store }),
    run: (...argv: string[]) => cli.run(...argv, ...STORE),
  }
}

describe('keyward webhooks', () => {
  it('creates an endpoint and prints its secret once; lists, shows, changes, rolls and deletes it, each audited', async () => {
    const { run, keyward } = world()
    const created = await run(
      'webhooks',
      'create',
      '--developer',
      'dev_1',
      '--url',
      URL,
      '--project',
      'p1',
      '--event',
      'key.revoked',
      '--event',
      'key.leaked',
    )
    expect(created.code, created.stderr).toBe(EXIT.ok)
    const [, id, secret] = created.stdout.match(
      /endpoint ([0-9a-f-]{36}) .*\n\n {2}Secret {2}(whsec_\S+)\n/s,
    )!
    expect(created.stdout).toContain('will not be shown again')

    const listed = await run('webhooks', 'list', '--developer', 'dev_1')
    expect(listed.stdout).toContain(`${id}  ${URL}  p1`)
    expect(listed.stdout).toContain('key.revoked,key.leaked')
    expect(listed.stdout).toMatch(/\n1 endpoint\.\n$/)
    expect(listed.stdout).not.toContain(secret!)
    const listedJson = JSON.parse((await run('webhooks', 'list', '--developer', 'dev_1', '--json')).stdout)
    expect(listedJson.endpoints).toEqual([expect.objectContaining({ id, url: URL, project_ids: ['p1'] })])
    expect(JSON.stringify(listedJson)).not.toContain(secret!)
    expect((await run('webhooks', 'list', '--developer', 'dev_2')).stdout).toBe(
      'No webhook endpoints of developer dev_2.\n',
    )

    const shown = await run('webhooks', 'show', id!)
    expect(shown.stdout).toContain('Events       key.revoked, key.leaked')
    expect(shown.stdout).toContain('State        enabled')

    const changed = await run('webhooks', 'update', id!, '--all-events', '--description', 'billing', '--json')
    expect(changed.code, changed.stderr).toBe(EXIT.ok)
    expect(JSON.parse(changed.stdout)).toMatchObject({
      event_types: null,
      description: 'billing',
      project_ids: ['p1'],
    })

    const rolled = await run('webhooks', 'roll-secret', id!, '--grace-seconds', '60', '--json')
    const rolledJson = JSON.parse(rolled.stdout)
    expect(rolledJson.secret).toMatch(/^whsec_/)
    expect(rolledJson.secret).not.toBe(secret)
    expect(rolledJson.previous_secret_expires_at).not.toBeNull()

    expect((await run('webhooks', 'delete', id!)).stdout).toBe(`Deleted webhook endpoint ${id}.\n`)
    const gone = await run('webhooks', 'show', id!)
    expect(gone.code).toBe(EXIT.failed)
    expect(gone.stderr).toBe(`keyward: No webhook endpoint with id ${id}.\n`)

    const rows = (await keyward().listAudit('dev_1')).records
    expect(rows.map((row) => [row.action, row.actor])).toEqual(
      ['deleted', 'secret_rolled', 'updated', 'created'].map((action) => [
        `webhook_endpoint.${action}`,
        { type: 'operator', name: 'alice' },
      ]),
    )
    expect(JSON.stringify(rows)).not.toContain(secret!)
  })

  it('refuses an internal host, http:// and an unknown event type as usage errors, writing nothing; the switches allow them', async () => {
    const { run, store } = world()
    const cases: [string[], string][] = [
      [
        ['--url', 'https://10.0.0.1/hook'],
        '--url: Its host is refused: 10.0.0.1 resolves to 10.0.0.1 (private).',
      ],
      [['--url', 'http://93.184.216.34/hook'], '--url: Expected an https:// URL.'],
      [['--url', URL, '--event', 'key.nope'], '--event (value 1): Expected one of'],
      [[], '--url is required.'],
    ]
    for (const [argv, message] of cases) {
      const r = await run('webhooks', 'create', '--developer', 'dev_1', ...argv)
      expect(r.code, argv.join(' ')).toBe(EXIT.usage)
      expect(r.stderr).toContain(message)
    }
    expect(await store.webhooks.listEndpoints('dev_1')).toEqual([])
    const dev = world({ KEYWARD_WEBHOOKS_ALLOW_HTTP: '1', KEYWARD_WEBHOOKS_ALLOW_PRIVATE: '1' })
    const local = await dev.run(
      'webhooks',
      'create',
      '--developer',
      'dev_1',
      '--url',
      'http://127.0.0.1:4000/hook',
    )
    expect(local.code, local.stderr).toBe(EXIT.ok)
    const metadata = await dev.run(
      'webhooks',
      'create',
      '--developer',
      'dev_1',
      '--url',
      'http://169.254.169.254/',
    )
    expect(metadata.code).toBe(EXIT.usage)
    expect(metadata.stderr).toContain('link-local or metadata')
  })

  it('sends a test event, lists the delivery log, and redelivers one event or a time range', async () => {
    const { run, store } = world()
    const created = JSON.parse(
      (await run('webhooks', 'create', '--developer', 'dev_1', '--url', URL, '--json')).stdout,
    )
    const tested = await run('webhooks', 'test', created.id, '--json')
    expect(tested.code, tested.stderr).toBe(EXIT.ok)
    const { event_id: eventId } = JSON.parse(tested.stdout)
    expect(JSON.parse(tested.stdout)).toEqual({
      event_id: expect.stringMatching(/^msg_/),
      type: 'webhook.test',
    })
    expect((await run('webhooks', 'deliveries', created.id)).stdout).toBe(
      `No delivery attempts to webhook endpoint ${created.id}.\n`,
    )
    // A dispatcher's part, done by hand: the test event delivered, with a 200.
    const at = new Date()
    const [delivery] = await store.webhooks.claimDeliveries(10, at, 30_000)
    expect(delivery?.event).toMatchObject({ id: eventId, type: 'webhook.test' })
    await store.webhooks.finishDelivery(
      delivery!,
      { at, status: 200, durationMs: 42, response: 'thanks' },
      { state: 'delivered' },
    )
    const log = await run('webhooks', 'deliveries', created.id)
    expect(log.stdout).toContain(`${eventId}  webhook.test  200     42  thanks`)
    expect(log.stdout).toMatch(/\n1 attempt\.\n$/)

    const one = await run('webhooks', 'redeliver', created.id, '--event-id', eventId)
    expect(one.stdout).toBe(`1 event due to webhook endpoint ${created.id} again.\n`)
    expect(await store.webhooks.claimDeliveries(10, new Date(), 30_000)).toHaveLength(1)
    const from = new Date(at.getTime() - 60_000).toISOString()
    const to = new Date(at.getTime() + 60_000).toISOString()
    const range = await run('webhooks', 'redeliver', created.id, '--from', from, '--to', to, '--json')
    expect(JSON.parse(range.stdout)).toEqual({ redelivered: 1 })
    const bad: [string[], number, string][] = [
      [[], EXIT.usage, 'Give either --event-id, or --from and --to.'],
      [['--from', from], EXIT.usage, '--to: expected a time'],
      [['--from', to, '--to', from], EXIT.usage, '--to: Expected `from` before `to`.'],
      [['--event-id', 'msg_nope'], EXIT.failed, 'This endpoint has no such event to send again.'],
    ]
    for (const [argv, code, message] of bad) {
      const r = await run('webhooks', 'redeliver', created.id, ...argv)
      expect(r.code, argv.join(' ')).toBe(code)
      expect(r.stderr).toContain(message)
    }
  })
})
