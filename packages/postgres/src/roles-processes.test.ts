// A role's change across two OS processes on real PostgreSQL: each child runs a Keyward of its
// own (a pool, a change feed, a cache) on one database. One changes a role; the other, which had
// the role's key in its cache, refuses the permission taken from the role: at once after the
// change call returned under strict revocation, and within the revocation bound without it.
import { fileURLToPath } from 'node:url'
import { createKeyward, ErrorType } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import { childOf, killSpendersAfterEach, pgHarnesses } from './test/credit-spenders.js'
import { PG_URL } from './test/harness.js'
import { until } from './test/until.js'

const MEMBER = fileURLToPath(new URL('./test/role-member.mjs', import.meta.url))
const PERMISSIONS = ['reports:read', 'reports:write', 'billing:read']
const PROJECT = 'proj-roles'

interface Checked {
  readonly outcome: string
  readonly entries: number
}

killSpendersAfterEach()

describe.skipIf(!PG_URL)('roles across two processes on PostgreSQL (set KEYWARD_PG_URL to run)', () => {
  const make = pgHarnesses()

  // A role and a key that holds it, written by this process; two children on the same schema.
  async function twoProcesses(strict: boolean) {
    const harness = await make()
    const keyward = createKeyward({ store: harness.store, permissions: PERMISSIONS })
    const role = await keyward.createRole(PROJECT, { name: 'reports', permissions: ['reports:*'] })
    const { key } = await keyward.issueProjectKey(PROJECT, {
      roles: ['reports'],
      permissions: ['billing:read'],
    })
    const options = { url: PG_URL as string, schema: harness.schema, strict, permissions: PERMISSIONS }
    const [writer, reader] = [childOf(MEMBER, options), childOf(MEMBER, options)]
    const check = (permissions: string) =>
      reader!.send<Checked>({ op: 'check', key, projectId: PROJECT, permissions })
    // The reader has the key in its cache, and answers from it (arranging may wait).
    await until(
      'the reader to cache the key',
      async () => {
        const checked = await check('reports:write')
        return checked.outcome === 'accepted' && checked.entries === 1
      },
      30_000,
    )
    const change = (permissions: string[]) => writer!.send({ op: 'updateRole', id: role.id, permissions })
    const close = () => Promise.all([writer!.send({ op: 'close' }), reader!.send({ op: 'close' })])
    return { check, change, close }
  }

  it('with strict revocation, the other process refuses a permission taken from the role once the change returned', async () => {
    const { check, change, close } = await twoProcesses(true)
    expect(await check('reports:write and billing:read')).toMatchObject({ outcome: 'accepted' })
    await change(['reports:read'])
    // No waiting: the reader heard it, or reads the primary.
    expect(await check('reports:write')).toMatchObject({ outcome: ErrorType.permissionDenied })
    expect(await check('reports:read and billing:read')).toMatchObject({ outcome: 'accepted' })
    // And back: a permission given to the role again is granted as soon.
    await change(['reports:read', 'reports:write'])
    expect(await check('reports:write')).toMatchObject({ outcome: 'accepted' })
    await close()
  }, 120_000)

  it('without it, the other process refuses it within the revocation bound, through the change feed', async () => {
    const { check, change, close } = await twoProcesses(false)
    await change(['reports:read'])
    // The reader's cache keeps an entry ten minutes: the feed brings the change long before (30 s is the test's
    // patience on a loaded machine, not a figure of speed).
    await until(
      'the reader to refuse reports:write',
      async () => {
        return (await check('reports:write')).outcome === ErrorType.permissionDenied
      },
      30_000,
    )
    expect(await check('reports:read and billing:read')).toMatchObject({ outcome: 'accepted' })
    await close()
  }, 120_000)
})
