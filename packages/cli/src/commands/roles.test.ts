import { createKeyward, MemoryKeyStore } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import { EXIT } from '../exit.js'
import { harness, STORE } from '../test/harness.js'

const PERMISSIONS = ['reports:read', 'reports:write', 'billing:read', 'billing:write']

// One store for every run (roles live beside the keys), and a service over it to arrange and check.
function world() {
  const store = new MemoryKeyStore()
  const cli = harness({ store: () => store, env: { KEYWARD_PERMISSIONS: PERMISSIONS.join(',') } })
  const keyward = () => createKeyward({ store, permissions: PERMISSIONS })
  const run = (...argv: string[]) => cli.run(...argv, ...STORE)
  const json = async (...argv: string[]) => {
    const answer = await run(...argv, '--json')
    expect(answer.code, answer.stderr).toBe(EXIT.ok)
    return JSON.parse(answer.stdout)
  }
  // Whether the key may do what `permissions` asks, as a guard would answer.
  const allowed = (projectKey: string, permissions: string) =>
    keyward()
      .authenticate({ projectKey }, { scope: 'project', projectId: 'proj_1', permissions })
      .then(
        () => 'ok',
        (error) => error.type,
      )
  return { run, json, keyward, allowed }
}

describe('keyward roles', () => {
  it('creates, lists, shows, updates and deletes a role', async () => {
    const { run, json } = world()
    const billing = await json(
      'roles',
      'create',
      '--project',
      'proj_1',
      '--name',
      'billing',
      '--permission',
      'billing:read',
      '--permission',
      'billing:*',
    )
    expect(billing).toMatchObject({
      project_id: 'proj_1',
      name: 'billing',
      permissions: ['billing:read', 'billing:*'],
    })
    const text = await run('roles', 'create', '--project', 'proj_1', '--name', 'empty')
    expect(text.stdout).toMatch(/^Created role [0-9a-f-]{36} \(empty\) of project proj_1: -\.\n$/)

    const listed = await run('roles', 'list', '--project', 'proj_1')
    expect(listed.stdout).toContain('billing:read, billing:*')
    expect(listed.stdout).toMatch(/\n2 roles\.\n$/)
    const page = await json('roles', 'list', '--project', 'proj_1', '--limit', '1')
    expect(page.roles).toHaveLength(1)
    const rest = await json('roles', 'list', '--project', 'proj_1', '--cursor', page.next_cursor)
    expect([...page.roles, ...rest.roles].map((role: { name: string }) => role.name).sort()).toEqual([
      'billing',
      'empty',
    ])
    expect((await run('roles', 'show', billing.id)).stdout).toContain(
      '  Permissions  billing:read, billing:*',
    )

    const renamed = await json(
      'roles',
      'update',
      billing.id,
      '--name',
      'payments',
      '--permission',
      'billing:read',
    )
    expect(renamed).toMatchObject({ id: billing.id, name: 'payments', permissions: ['billing:read'] })
    const emptied = await json('roles', 'update', billing.id, '--clear-permissions')
    expect(emptied.permissions).toEqual([])
    expect(await json('roles', 'delete', billing.id)).toEqual({
      id: billing.id,
      deleted: true,
      detached_keys: [],
      detached_identities: [],
    })
    const gone = await run('roles', 'show', billing.id)
    expect([gone.code, gone.stderr]).toEqual([EXIT.failed, `keyward: No role with id ${billing.id}.\n`])
  })

  it('refuses bad options as usage errors naming the option, and a taken name', async () => {
    const { run, json } = world()
    const role = await json('roles', 'create', '--project', 'proj_1', '--name', 'billing')
    for (const [argv, code, message] of [
      [['roles', 'create', '--project', 'proj_1'], EXIT.usage, '--name is required.'],
      [
        ['roles', 'create', '--project', 'proj_1', '--name', 'x', '--permission', 'nope'],
        EXIT.usage,
        '--permission (value 1): The permission nope is not one this server declares.',
      ],
      [
        ['roles', 'update', role.id],
        EXIT.usage,
        'Give at least one of --name, --permission, --clear-permissions.',
      ],
      [
        ['roles', 'update', role.id, '--permission', 'billing:read', '--clear-permissions'],
        EXIT.usage,
        '--clear-permissions cannot go with --permission.',
      ],
      [
        ['roles', 'create', '--project', 'proj_1', '--name', 'billing'],
        EXIT.failed,
        'The project has a role of this name already.',
      ],
    ] as const) {
      const answer = await run(...argv)
      expect({ argv, code: answer.code, stderr: answer.stderr }).toEqual({
        argv,
        code,
        stderr: expect.stringContaining(message),
      })
    }
  })

  it('gives roles to keys with --role, and a deletion keeps a held role unless --detach', async () => {
    const { run, json, allowed } = world()
    await json('roles', 'create', '--project', 'proj_1', '--name', 'billing', '--permission', 'billing:*')
    const reader = await json(
      'roles',
      'create',
      '--project',
      'proj_1',
      '--name',
      'reader',
      '--permission',
      'reports:read',
    )
    const key = await json('keys', 'create', '--project', 'proj_1', '--role', 'billing', '--role', 'reader')
    expect(key.roles).toEqual(['billing', 'reader'])
    expect(await allowed(key.key, 'billing:write and reports:read')).toBe('ok')
    expect(await allowed(key.key, 'reports:write')).toBe('permission_denied')

    const unknown = await run('keys', 'update', key.id, '--role', 'auditor')
    expect([unknown.code, unknown.stderr]).toEqual([
      EXIT.usage,
      'keyward: --role (value 1): The project has no role named "auditor".\n',
    ])
    const moved = await json('keys', 'update', key.id, '--role', 'reader')
    expect(moved.roles).toEqual(['reader'])
    expect(await allowed(key.key, 'billing:read')).toBe('permission_denied')
    const listed = await json('keys', 'list', '--project', 'proj_1')
    expect(listed.keys[0].roles).toEqual(['reader'])
    expect((await json('keys', 'credits', key.id, '--set', '10')).roles).toEqual(['reader'])
    expect((await run('keys', 'list', '--project', 'proj_1')).stdout).toContain('1 role')

    const kept = await run('roles', 'delete', reader.id)
    expect([kept.code, kept.stderr]).toEqual([
      EXIT.failed,
      'keyward: 1 key holds the role: take it from them first, or delete it with --detach.\n',
    ])
    const deleted = await run('roles', 'delete', reader.id, '--detach')
    expect(deleted.stdout).toBe(`Deleted role ${reader.id} (reader), taken from 1 key.\n`)
    expect((await json('keys', 'update', key.id, '--clear-roles')).roles).toBeNull()
    // No role and no permission of its own: every permission again.
    expect(await allowed(key.key, 'reports:write')).toBe('ok')
  })

  it("shows the roles of a rolled key and of an identity's keys by name", async () => {
    const { json } = world()
    await json('roles', 'create', '--project', 'proj_1', '--name', 'reader', '--permission', 'reports:read')
    const identity = await json(
      'identities',
      'create',
      '--project',
      'proj_1',
      '--external-id',
      'customer_acme',
    )
    const key = await json(
      'keys',
      'create',
      '--project',
      'proj_1',
      '--role',
      'reader',
      '--identity',
      identity.id,
    )
    expect((await json('keys', 'roll', key.id)).roles).toEqual(['reader'])
    const keys = (await json('identities', 'keys', identity.id)).keys
    expect(keys.map((listed: { roles: string[] }) => listed.roles)).toEqual([['reader'], ['reader']])
  })
})
