import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateKey, hashKey, KEY_PATTERN, type KeyRecord, MemoryKeyStore } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import { EXIT } from './exit.js'
import type { CliIO } from './io.js'
import { run } from './run.js'
import { harness, STORE } from './test/harness.js'

describe('keyward developers register', () => {
  it('prints the first developer key once, and stores only its hash and prefix', async () => {
    const cli = harness()
    const result = await cli.run('developers', 'register', 'dev_1', '--name', 'laptop', ...STORE)
    expect(result.code).toBe(EXIT.ok)
    expect(result.stderr).toBe('')
    const key = /Developer key {2}(\S+)/.exec(result.stdout)?.[1]
    expect(key).toMatch(KEY_PATTERN)
    expect(result.stdout).toContain('This key will not be shown again')
    expect(result.stdout.split(key!)).toHaveLength(2) // printed exactly once
    const [record] = [...cli.records.values()]
    expect(record).toMatchObject({ ownerType: 'developer', ownerId: 'dev_1', name: 'laptop', active: true })
    expect(record!.hash).toBe(await hashKey(key!))
    expect(JSON.stringify([...cli.records.values()])).not.toContain(key!.slice(8))
    const auth = await cli.keyward().authenticate({ developerKey: key }, { scope: 'developer' })
    expect(auth.developerId).toBe('dev_1')
    expect(cli.opened).toEqual([{ dataDir: '/var/lib/keyward' }])
    expect(cli.closed()).toBe(1)
  })

  it('--json prints the key creation object with the notice as a field', async () => {
    const cli = harness()
    const result = await cli.run('developers', 'register', 'dev_1', '--json', ...STORE)
    expect(result.code).toBe(EXIT.ok)
    const body = JSON.parse(result.stdout)
    const [record] = [...cli.records.values()]
    expect(body).toEqual({
      id: record!.id,
      key: expect.stringMatching(KEY_PATTERN),
      key_prefix: record!.keyPrefix,
      display: `${record!.keyPrefix}...`,
      name: null,
      developer_id: 'dev_1',
      active: true,
      created_at: record!.createdAt.toISOString(),
      expires_at: null,
      last_used_at: null,
      rotation_due: false,
      revoked_reason: null,
      notice: expect.stringContaining('will not be shown again'),
    })
    expect(await hashKey(body.key)).toBe(record!.hash)
  })

  it('refuses a developer that already has an active key (exit 1), and stores nothing', async () => {
    const cli = harness()
    await cli.run('developers', 'register', 'dev_1', ...STORE)
    const again = await cli.run('developers', 'register', 'dev_1', ...STORE)
    expect(again.code).toBe(EXIT.failed)
    expect(again.stdout).toBe('')
    expect(again.stderr).toContain('Developer dev_1 is already registered (1 active key)')
    expect(cli.records.size).toBe(1)
    const asJson = await cli.run('developers', 'register', 'dev_1', '--json', ...STORE)
    expect(JSON.parse(asJson.stderr).detail[0].type).toBe('already_registered')
  })

  it('registers a developer again once all their keys are revoked', async () => {
    const cli = harness()
    await cli.run('developers', 'register', 'dev_1', ...STORE)
    const [first] = [...cli.records.values()]
    expect((await cli.run('keys', 'revoke', first!.id, ...STORE)).code).toBe(EXIT.ok)
    const again = await cli.run('developers', 'register', 'dev_1', ...STORE)
    expect(again.code).toBe(EXIT.ok)
    expect([...cli.records.values()].filter((r) => r.active)).toHaveLength(1)
  })

  it('checks --name before opening the store (exit 2)', async () => {
    const cli = harness()
    const result = await cli.run('developers', 'register', 'dev_1', '--name', 'x'.repeat(101), ...STORE)
    expect(result.code).toBe(EXIT.usage)
    expect(result.stderr).toBe('keyward: --name: String should have at most 100 characters, got 101.\n')
    expect(cli.opened).toEqual([])
  })

  it('refuses a --name that holds a key, without printing it, before opening the store (exit 2)', async () => {
    const cli = harness()
    const key = `ak_${'Zq9x'.repeat(8)}`
    const result = await cli.run('developers', 'register', 'dev_1', '--name', `laptop ${key}`, ...STORE)
    expect(result.code).toBe(EXIT.usage)
    expect(result.stderr).toMatch(/^keyward: --name: The value holds something shaped like a key/)
    expect(result.stderr + result.stdout).not.toContain('Zq9x')
    expect(cli.opened).toEqual([])
  })

  it.each([
    [
      ['developers', 'register', ...STORE],
      "keyward: Missing required argument 'developer-id'. Run 'keyward developers register --help'.",
    ],
    [['developers', 'register', 'a', 'b', ...STORE], 'Too many arguments for'],
    [['developers', 'register', ' dev_1', ...STORE], '<developer-id> has leading or trailing whitespace.'],
    [['developers', 'register', 'dev\u001b[2J', ...STORE], '<developer-id> contains a control character.'],
    [['developers', 'register', 'dev_1', '--name'], "Option '--name <name>' argument missing."],
    [
      ['developers', 'register', 'dev_1', '--bogus', ...STORE],
      "keyward: Unknown option '--bogus'. Run 'keyward developers register --help'.\n",
    ],
    [
      ['developers', 'register', 'dev_1', '--nmae', 'x', ...STORE],
      "Unknown option '--nmae' (Did you mean --name?)",
    ],
  ])('refuses %j as a usage error (exit 2)', async (argv, message) => {
    const cli = harness()
    const result = await cli.run(...argv)
    expect(result.code).toBe(EXIT.usage)
    expect(result.stderr).toContain(message)
    expect(result.stderr.split('\n')).toHaveLength(2) // one line
    expect(result.stderr).not.toMatch(/^error:|\n\s+at /m)
    expect(cli.records.size).toBe(0)
  })
})

describe('store location', () => {
  it('needs --data-dir, --pg-url or their variables (exit 2)', async () => {
    const cli = harness()
    const result = await cli.run('keys', 'list', '--developer', 'dev_1')
    expect(result.code).toBe(EXIT.usage)
    expect(result.stderr).toContain('--data-dir DIR')
    expect(result.stderr).toContain('KEYWARD_DATA_DIR or KEYWARD_PG_URL')
    expect(cli.opened).toEqual([])
  })

  it('refuses a PostgreSQL URL of the wrong shape, naming where it came from (exit 2)', async () => {
    const cases = [
      [
        { KEYWARD_PG_URL: 'notaurl' },
        [],
        'keyward: KEYWARD_PG_URL is not a URL (it has no scheme such as postgres://): give one such as postgres://user:password@localhost:5432/keys.\n',
      ],
      [
        {},
        ['--pg-url', 'mysql://root:hunter2@db/keys'],
        'keyward: --pg-url has the scheme mysql://, not postgres:// or postgresql://: give one such as postgres://user:password@localhost:5432/keys.\n',
      ],
      [
        { KEYWARD_PG_URL: 'postgres://db/keys', KEYWARD_PG_LISTEN_URL: 'db:5432' },
        [],
        'keyward: KEYWARD_PG_LISTEN_URL is not a URL (it has no scheme such as postgres://): give one such as postgres://user:password@localhost:5432/keys.\n',
      ],
    ] as const
    for (const [env, options, message] of cases) {
      const cli = harness({ env })
      const result = await cli.run('keys', 'list', '--developer', 'd', ...options)
      expect([result.code, result.stderr]).toEqual([EXIT.usage, message])
      expect(cli.opened).toEqual([])
    }
  })

  it('refuses --data-dir and --pg-url together (exit 2)', async () => {
    const cli = harness()
    const result = await cli.run(
      'keys',
      'list',
      '--developer',
      'd',
      '--data-dir',
      'a',
      '--pg-url',
      'postgres://x',
    )
    expect([result.code, result.stderr]).toEqual([
      EXIT.usage,
      'keyward: Give either --data-dir or --pg-url, not both.\n',
    ])
  })

  it('reads KEYWARD_PG_URL, then KEYWARD_DATA_DIR, and an option overrides both', async () => {
    const env = { KEYWARD_PG_URL: 'postgres://db/keys', KEYWARD_DATA_DIR: '/data' }
    const cli = harness({ env })
    await cli.run('keys', 'list', '--developer', 'd')
    await cli.run('keys', 'list', '--developer', 'd', '--data-dir', '/elsewhere')
    const dataDirOnly = harness({ env: { KEYWARD_DATA_DIR: '/data' } })
    await dataDirOnly.run('keys', 'list', '--developer', 'd')
    expect(cli.opened).toEqual([
      { pgUrl: 'postgres://db/keys', revocationBoundMs: 250 },
      { dataDir: '/elsewhere' },
    ])
    expect(dataDirOnly.opened).toEqual([{ dataDir: '/data' }])
  })

  it("bounds each store operation by --timeout, else by the command's own default (import: 60 s)", async () => {
    const directory = await mkdtemp(join(tmpdir(), 'keyward-timeout-'))
    try {
      const file = join(directory, 'none.ndjson')
      await writeFile(file, '')
      const cli = harness()
      await cli.run('keys', 'list', '--developer', 'd', '--data-dir', '/d', '--timeout', '10')
      expect((await cli.run('import', '--file', file, '--data-dir', '/d')).code).toBe(EXIT.ok)
      await cli.run('import', '--file', file, '--data-dir', '/d', '--timeout', '5')
      expect(cli.opened).toEqual([
        { dataDir: '/d', queryTimeoutMs: 10_000 },
        { dataDir: '/d', queryTimeoutMs: 60_000 },
        { dataDir: '/d', queryTimeoutMs: 5_000 },
      ])
      for (const bad of ['0', '3601', '1.5', 'ten']) {
        const result = await cli.run('keys', 'list', '--developer', 'd', '--data-dir', '/d', '--timeout', bad)
        expect([result.code, result.stderr]).toEqual([
          EXIT.usage,
          `keyward: --timeout must be a whole number of seconds from 1 to 3600, got "${bad}".\n`,
        ])
      }
      expect(cli.opened).toHaveLength(3)
    } finally {
      await rm(directory, { recursive: true, force: true })
    }
  })

  it('exits 3 when the store cannot be opened', async () => {
    const cli = harness({ openFails: new Error('connect ECONNREFUSED 127.0.0.1:5432') })
    const result = await cli.run('keys', 'list', '--developer', 'dev_1', ...STORE)
    expect(result.code).toBe(EXIT.storeUnavailable)
    expect(result.stderr).toBe('keyward: Cannot open the store: connect ECONNREFUSED 127.0.0.1:5432\n')
  })

  it('exits 3 when the store fails during a command, and still closes it', async () => {
    const broken = (records: Map<string, KeyRecord>) => {
      const store = new MemoryKeyStore({ records })
      store.insertKey = async () => {
        throw new Error('connection terminated')
      }
      return store
    }
    const cli = harness({ store: broken })
    const result = await cli.run('developers', 'register', 'dev_1', '--json', ...STORE)
    expect(result.code).toBe(EXIT.storeUnavailable)
    expect(JSON.parse(result.stderr)).toEqual({
      detail: [
        { loc: [], msg: 'The key store is unavailable: connection terminated', type: 'store_unavailable' },
      ],
    })
    expect(cli.closed()).toBe(1)
  })

  it('turns prepared statements off with KEYWARD_PG_PREPARED_STATEMENTS=off (a transaction pooler)', async () => {
    // With the servers' cache off and no replicas, so no strict revocation and no change feed.
    const env = {
      KEYWARD_PG_URL: 'postgres://pooler/keys',
      KEYWARD_PG_PREPARED_STATEMENTS: 'off',
      KEYWARD_CACHE: 'off',
    }
    const cli = harness({ env })
    await cli.run('keys', 'list', '--developer', 'd')
    await cli.run('keys', 'list', '--developer', 'd', '--data-dir', '/data')
    expect(cli.opened).toStrictEqual([
      { pgUrl: 'postgres://pooler/keys', preparedStatements: false },
      { dataDir: '/data' },
    ])
    const wrong = harness({ env: { ...env, KEYWARD_PG_PREPARED_STATEMENTS: 'no' } })
    const result = await wrong.run('keys', 'list', '--developer', 'd')
    expect(result.code).toBe(EXIT.usage)
    expect(result.stderr).toContain('KEYWARD_PG_PREPARED_STATEMENTS must be on or off, got "no".')
    expect(wrong.opened).toEqual([])
  })

  it('revokes under strict revocation where the server does: with its cache or replicas, or a bound set', async () => {
    const env = { KEYWARD_PG_URL: 'postgres://db/keys' }
    const byDefault = harness({ env })
    await byDefault.run('keys', 'list', '--developer', 'd')
    const uncached = harness({ env: { ...env, KEYWARD_CACHE: 'off' } })
    await uncached.run('keys', 'list', '--developer', 'd')
    const withReplicas = harness({
      env: { ...env, KEYWARD_CACHE: 'off', KEYWARD_PG_REPLICA_URLS: 'postgres://replica/keys' },
    })
    await withReplicas.run('keys', 'list', '--developer', 'd')
    const bound = harness({
      env: { ...env, KEYWARD_REVOCATION_BOUND_MS: '400', KEYWARD_PG_LISTEN_URL: 'postgres://direct/keys' },
    })
    await bound.run('keys', 'list', '--developer', 'd')
    const off = harness({
      env: { ...env, KEYWARD_PG_REPLICA_URLS: 'postgres://replica/keys', KEYWARD_REVOCATION_BOUND_MS: 'off' },
    })
    await off.run('keys', 'list', '--developer', 'd')
    expect([
      ...byDefault.opened,
      ...uncached.opened,
      ...withReplicas.opened,
      ...bound.opened,
      ...off.opened,
    ]).toStrictEqual([
      { pgUrl: 'postgres://db/keys', revocationBoundMs: 250 },
      { pgUrl: 'postgres://db/keys' },
      { pgUrl: 'postgres://db/keys', revocationBoundMs: 250 },
      { pgUrl: 'postgres://db/keys', revocationBoundMs: 400, listenUrl: 'postgres://direct/keys' },
      { pgUrl: 'postgres://db/keys' },
    ])
    for (const pooledEnv of [
      { ...env, KEYWARD_PG_PREPARED_STATEMENTS: 'off' },
      { ...env, KEYWARD_REVOCATION_BOUND_MS: '250', KEYWARD_PG_PREPARED_STATEMENTS: 'off' },
    ]) {
      const pooled = harness({ env: pooledEnv })
      const result = await pooled.run('keys', 'list', '--developer', 'd')
      expect(result.code).toBe(EXIT.usage)
      expect(result.stderr).toContain('needs KEYWARD_PG_LISTEN_URL, a direct connection to the primary')
      expect(pooled.opened).toEqual([])
    }
    const cacheTypo = harness({ env: { ...env, KEYWARD_CACHE: 'false' } })
    const typo = await cacheTypo.run('keys', 'list', '--developer', 'd')
    expect(typo.code).toBe(EXIT.usage)
    expect(typo.stderr).toContain('KEYWARD_CACHE must be on or off, got "false".')
    const wrong = harness({ env: { ...env, KEYWARD_REVOCATION_BOUND_MS: '0' } })
    expect((await wrong.run('keys', 'list', '--developer', 'd')).stderr).toContain(
      'KEYWARD_REVOCATION_BOUND_MS must be an integer from 1 to 60000 or off, got "0".',
    )
  })

  it('takes the SQL schema from --pg-schema, else KEYWARD_PG_SCHEMA, for either store', async () => {
    const cli = harness({ env: { KEYWARD_PG_URL: 'postgres://db/keys', KEYWARD_PG_SCHEMA: 'ops' } })
    await cli.run('keys', 'list', '--developer', 'd')
    await cli.run('keys', 'list', '--developer', 'd', '--pg-schema', 'tenant_1', '--data-dir', '/data')
    const noSchema = harness({ env: { KEYWARD_PG_SCHEMA: '' } })
    await noSchema.run('keys', 'list', '--developer', 'd', '--pg-url', 'postgres://db/keys')
    expect(cli.opened).toEqual([
      { pgUrl: 'postgres://db/keys', schema: 'ops', revocationBoundMs: 250 },
      { dataDir: '/data', schema: 'tenant_1' },
    ])
    expect(noSchema.opened).toStrictEqual([{ pgUrl: 'postgres://db/keys', revocationBoundMs: 250 }])
  })

  it.each(['--data-dir', '--pg-url', '--pg-schema'])('refuses an empty %s (exit 2)', async (option) => {
    const cli = harness()
    const result = await cli.run('keys', 'list', '--developer', 'd', option, '')
    expect([result.code, result.stderr]).toEqual([EXIT.usage, `keyward: ${option} is empty.\n`])
    expect(cli.opened).toEqual([])
  })

  it('the default store factory opens PostgreSQL for --pg-url, and exits 3 when it refuses', async () => {
    const io: CliIO = {
      stdin: { async *[Symbol.asyncIterator]() {} },
      stdout: { write: () => true },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: {},
    }
    let stderr = ''
    const url = 'postgres://operator:s3cret@127.0.0.1:1/none'
    const code = await run(['keys', 'list', '--developer', 'd', '--pg-url', url], io)
    expect(code).toBe(EXIT.storeUnavailable)
    expect(stderr).toBe('keyward: Cannot open the store: connect ECONNREFUSED 127.0.0.1:1\n')
  })
})

describe('keyward keys list', () => {
  async function arranged() {
    const cli = harness()
    const keyward = cli.keyward()
    const a = await keyward.issueDeveloperKey('dev_1', { name: 'laptop' })
    const b = await keyward.issueDeveloperKey('dev_1', { name: 'ci' })
    await keyward.deactivateKey(b.record.id)
    // Keyward refuses control characters in names, but a store may hold older records that
    // have them: the table must not pass them to the terminal.
    cli.records.set(b.record.id, { ...cli.records.get(b.record.id)!, name: 'ci\u001b[31m' })
    const p = await keyward.issueProjectKey('proj_1', { name: 'default' })
    return { cli, a, b, p }
  }

  it('prints a table of the keys, by prefix, never a full key', async () => {
    const { cli, a, b, p } = await arranged()
    const result = await cli.run('keys', 'list', '--developer', 'dev_1', ...STORE)
    expect(result.code).toBe(EXIT.ok)
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(
      /^ID {2,}KEY {2,}NAME {2,}ACTIVE {2}REVOKED {2}CREATED {2,}EXPIRES {2}USED {2}DUE {2}POLICIES$/,
    )
    // Newest first: b was issued after a (or in the same millisecond, with the greater id).
    const [first, second] = [lines[1]!, lines[2]!].sort(
      (x, y) => (x.includes(a.record.id) ? 1 : -1) - (y.includes(a.record.id) ? 1 : -1),
    )
    expect(second).toContain(`${a.record.id}  ${a.record.keyPrefix}...  laptop`)
    expect(second).toMatch(/ {2}yes {5}- {8}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}- {8}- {5}no {3}-$/)
    expect(first).toContain(`${b.record.keyPrefix}...  ci?[31m`)
    expect(first).toMatch(/ {2}no {6}revoked {2}\d{4}-/)
    expect(lines.at(-1)).toBe('2 keys, 1 active.')
    for (const issued of [a, b, p]) expect(result.stdout).not.toContain(issued.key.slice(8))
    expect(result.stdout).not.toContain(p.record.id)
    expect(result.stdout).not.toContain('\u001b')
  })

  it('--json prints the listing the HTTP API returns, without keys or hashes', async () => {
    const { cli, p } = await arranged()
    const result = await cli.run('keys', 'list', '--project', 'proj_1', '--json', ...STORE)
    expect(result.code).toBe(EXIT.ok)
    expect(JSON.parse(result.stdout)).toEqual({
      keys: [
        {
          id: p.record.id,
          key_prefix: p.record.keyPrefix,
          display: `${p.record.keyPrefix}...`,
          name: 'default',
          project_id: 'proj_1',
          active: true,
          created_at: p.record.createdAt.toISOString(),
          expires_at: null,
          last_used_at: null,
          rotation_due: false,
          revoked_reason: null,
          ip_allowlist: null,
          permissions: null,
          metadata: null,
          ratelimits: [],
          remaining: null,
          refill: null,
          credits_low_at: null,
          identity_id: null,
          roles: null,
        },
      ],
      next_cursor: null,
    })
  })

  it('--limit prints one page, newest first, and how to ask for the next; --cursor gives it', async () => {
    const cli = harness()
    const keyward = cli.keyward()
    const issued = []
    for (let i = 0; i < 5; i++)
      issued.push((await keyward.issueProjectKey('proj_9', { name: `k${i}` })).record)
    const newestFirst = [...issued]
      .sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || (x.id < y.id ? 1 : -1))
      .map((record) => record.id)
    const first = await cli.run('keys', 'list', '--project', 'proj_9', '--limit', '2', '--json', ...STORE)
    const page = JSON.parse(first.stdout)
    expect(page.keys.map((k: { id: string }) => k.id)).toEqual(newestFirst.slice(0, 2))
    const text = await cli.run('keys', 'list', '--project', 'proj_9', '--limit', '2', ...STORE)
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe(
      `More keys: keyward keys list --project proj_9 --limit 2 --cursor ${page.next_cursor}`,
    )
    const ids = [...page.keys.map((k: { id: string }) => k.id)]
    let cursor = page.next_cursor
    while (cursor) {
      const next = JSON.parse(
        (
          await cli.run(
            'keys',
            'list',
            '--project',
            'proj_9',
            '--limit',
            '2',
            '--cursor',
            cursor,
            '--json',
            ...STORE,
          )
        ).stdout,
      )
      ids.push(...next.keys.map((k: { id: string }) => k.id))
      cursor = next.next_cursor
    }
    expect(ids).toEqual(newestFirst)
    const all = JSON.parse((await cli.run('keys', 'list', '--project', 'proj_9', '--json', ...STORE)).stdout)
    expect([all.keys.map((k: { id: string }) => k.id), all.next_cursor]).toEqual([newestFirst, null])
  })

  it.each([
    [['--limit', '0'], 'keyward: --limit must be a whole number from 1 to 200.\n'],
    [['--limit', '201'], 'keyward: --limit must be a whole number from 1 to 200.\n'],
    [['--cursor', 'garbage'], expect.stringMatching(/^keyward: --cursor: The cursor is not valid: /)],
  ])('refuses a bad page (%j, exit 2)', async (page, message) => {
    const result = await harness().run('keys', 'list', '--project', 'p', ...page, ...STORE)
    expect([result.code, result.stderr]).toEqual([EXIT.usage, message])
  })

  it('--due lists only the keys older than the rotation period, and shows when keys were used', async () => {
    const { cli, a, p } = await arranged()
    const old = new Date(Date.now() - 91 * 86_400_000)
    cli.records.set(a.record.id, { ...cli.records.get(a.record.id)!, createdAt: old, lastUsedAt: old })
    const due = await cli.run('keys', 'list', '--developer', 'dev_1', '--due', ...STORE)
    const lines = due.stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(4)
    expect(lines[1]).toContain(a.record.id)
    expect(lines[1]).toMatch(new RegExp(`${old.toISOString().slice(0, 19)}Z {2}yes {2}-$`))
    expect(lines.at(-1)).toBe('1 key due for rotation, 1 active.')
    const none = await cli.run('keys', 'list', '--project', 'proj_1', '--due', '--json', ...STORE)
    expect(JSON.parse(none.stdout)).toEqual({ keys: [], next_cursor: null })
    expect(p.record.id).toBeTruthy()
  })

  it('says so when there are no keys (exit 0)', async () => {
    const cli = harness()
    expect(await cli.run('keys', 'list', '--project', 'nobody', ...STORE)).toEqual({
      code: EXIT.ok,
      stdout: 'No keys for project nobody.\n',
      stderr: '',
    })
    expect((await cli.run('keys', 'list', '--project', 'nobody', '--json', ...STORE)).stdout).toBe(
      '{"keys":[],"next_cursor":null}\n',
    )
  })

  it.each([[[]], [['--developer', 'd', '--project', 'p']]])(
    'needs exactly one owner (%j, exit 2)',
    async (owner) => {
      const result = await harness().run('keys', 'list', ...owner, ...STORE)
      expect(result.code).toBe(EXIT.usage)
      expect(result.stderr).toBe('keyward: Give exactly one of --developer ID or --project ID.\n')
    },
  )
})

describe('keyward keys roll and activate', () => {
  it('rolls a key: prints the new key once; the old one works for the grace window', async () => {
    const cli = harness()
    const { key, record } = await cli.keyward().issueProjectKey('proj_1', { name: 'ci' })
    const result = await cli.run('keys', 'roll', record.id, '--grace-seconds', '60', '--json', ...STORE)
    expect(result.code).toBe(EXIT.ok)
    const body = JSON.parse(result.stdout)
    expect(body).toMatchObject({ name: 'ci', project_id: 'proj_1', previous_key: { id: record.id } })
    expect(await hashKey(body.key)).toBe(cli.records.get(body.id)!.hash)
    const asProject = (projectKey: string) =>
      cli.keyward().authenticate({ projectKey }, { scope: 'project', projectId: 'proj_1' })
    await expect(asProject(key)).resolves.toBeTruthy()
    await expect(asProject(body.key)).resolves.toBeTruthy()
    const again = await cli.run('keys', 'roll', record.id, ...STORE)
    expect([again.code, again.stderr]).toEqual([EXIT.failed, expect.stringContaining('rolled')])
    const bad = await cli.run('keys', 'roll', body.id, '--grace-seconds', 'soon', ...STORE)
    expect(bad.code).toBe(EXIT.usage)
  })

  it('re-activates a revoked key, and exits 1 at the limit', async () => {
    const cli = harness()
    const keyward = cli.keyward()
    const { record } = await keyward.issueDeveloperKey('dev_1')
    await keyward.deactivateKey(record.id)
    const back = await cli.run('keys', 'activate', record.id, ...STORE)
    expect([back.code, back.stdout]).toEqual([
      EXIT.ok,
      `Activated key ${record.id} (${record.keyPrefix}..., developer dev_1).\n`,
    ])
    await keyward.deactivateKey(record.id)
    for (let i = 0; i < 10; i++) await keyward.issueDeveloperKey('dev_1')
    const full = await cli.run('keys', 'activate', record.id, ...STORE)
    expect([full.code, full.stderr]).toEqual([EXIT.failed, expect.stringContaining('10 active keys')])
  })
})

describe('keyward keys revoke', () => {
  it('deactivates the key, which then fails authentication', async () => {
    const cli = harness()
    const { key, record } = await cli.keyward().issueProjectKey('proj_1')
    const result = await cli.run('keys', 'revoke', record.id, ...STORE)
    expect(result.code).toBe(EXIT.ok)
    expect(result.stdout).toBe(`Revoked key ${record.id} (${record.keyPrefix}..., project proj_1).\n`)
    expect(cli.records.get(record.id)!.active).toBe(false)
    await expect(
      cli.keyward().authenticate({ projectKey: key }, { scope: 'project', projectId: 'proj_1' }),
    ).rejects.toMatchObject({ type: 'key_invalid' })
  })

  it('succeeds on a key that is already inactive, and says so', async () => {
    const cli = harness()
    const { record } = await cli.keyward().issueDeveloperKey('dev_1')
    await cli.run('keys', 'revoke', record.id, ...STORE)
    const again = await cli.run('keys', 'revoke', record.id, '--json', ...STORE)
    expect(again.code).toBe(EXIT.ok)
    expect(JSON.parse(again.stdout)).toMatchObject({ id: record.id, active: false, developer_id: 'dev_1' })
    const text = await cli.run('keys', 'revoke', record.id, ...STORE)
    expect(text.stdout).toBe(
      `Key ${record.id} (${record.keyPrefix}..., developer dev_1) was already inactive.\n`,
    )
  })

  it('exits 1 for an unknown key id', async () => {
    const cli = harness()
    const result = await cli.run('keys', 'revoke', 'no-such-id', ...STORE)
    expect([result.code, result.stdout, result.stderr]).toEqual([
      EXIT.failed,
      '',
      'keyward: No key with id no-such-id.\n',
    ])
    const asJson = await cli.run('keys', 'revoke', 'no-such-id', '--json', ...STORE)
    expect(JSON.parse(asJson.stderr).detail[0].type).toBe('not_found')
  })
})

describe('keyward generate', () => {
  it('prints a new well-formed key, different each time', async () => {
    const cli = harness()
    const first = await cli.run('generate')
    const second = await cli.run('generate')
    expect(first.code).toBe(EXIT.ok)
    expect(first.stdout).toMatch(/^ak_[A-Za-z0-9_-]{32}\n$/)
    expect(first.stdout).not.toBe(second.stdout)
    expect(cli.opened).toEqual([])
  })

  it('--json adds the prefix, display form and hash', async () => {
    const { stdout } = await harness().run('generate', '--json')
    const body = JSON.parse(stdout)
    expect(body).toEqual({
      key: expect.stringMatching(KEY_PATTERN),
      key_prefix: body.key.slice(0, 8),
      display: `${body.key.slice(0, 8)}...`,
      hash: await hashKey(body.key),
    })
  })
})

describe('keyward check', () => {
  const key = generateKey()

  it('accepts a well-formed key from stdin, one trailing newline trimmed', async () => {
    const result = await harness({ stdin: `${key}\n` }).run('check')
    expect(result).toEqual({
      code: EXIT.ok,
      stdout: `${key.slice(0, 8)}... is a well-formed developer key.\n`,
      stderr: '',
    })
  })

  it.each([
    [key.slice(0, 34), 'Expected 35 characters, got 34. (key_malformed)'],
    ['ak_tooShort', 'Expected at least 16 characters, got 11. (key_malformed)'],
    [`sk_${key.slice(3)}`, 'Expected a developer key starting with ak_. (key_malformed)'],
    [
      `${key.slice(0, 10)}.${key.slice(11)}`,
      "Character 11 is not allowed: keys use only A-Z, a-z, 0-9, '-' and '_'. (key_malformed)",
    ],
    [`${key} `, 'Expected 35 characters, got 36. (key_malformed)'],
    [`dk_${key.slice(3)}`, 'Developer keys with the dk_ prefix are no longer accepted.'],
  ])('explains which rule %j breaks (exit 1), without echoing it', async (value, why) => {
    const result = await harness({ stdin: `${value}\n` }).run('check')
    expect(result.code).toBe(EXIT.failed)
    expect(result.stdout).toContain(`Not a well-formed developer key: ${why}`)
    expect(result.stdout).not.toContain(value.slice(3, 16))
  })

  it('applies the legacy policy and the kind', async () => {
    const legacy = `dk_${key.slice(3)}`
    expect((await harness({ stdin: legacy }).run('check', '--legacy-developer-keys', 'accept')).code).toBe(
      EXIT.ok,
    )
    const asProject = await harness({ stdin: legacy }).run('check', '--kind', 'project', '--json')
    expect(asProject.code).toBe(EXIT.failed)
    expect(JSON.parse(asProject.stdout)).toEqual({
      valid: false,
      kind: 'project',
      type: 'key_malformed',
      msg: 'API keys start with ak_; dk_ is the legacy prefix of developer keys.',
    })
    const valid = await harness({ stdin: key }).run('check', '--kind', 'project', '--json')
    expect(JSON.parse(valid.stdout)).toEqual({
      valid: true,
      kind: 'project',
      display: `${key.slice(0, 8)}...`,
    })
  })

  it.each([
    [{ tty: true }, 'keyward check reads the key from stdin, not from the terminal'],
    [{ stdin: '' }, 'Expected a key on stdin, got nothing.'],
    [{ stdin: '\n' }, 'Expected a key on stdin, got nothing.'],
    [{ stdin: `${key}\n${key}\n` }, 'Expected one key on one line of stdin, got several lines.'],
  ])('refuses unusable input as a usage error (%j)', async (options, message) => {
    const result = await harness(options).run('check')
    expect(result.code).toBe(EXIT.usage)
    expect(result.stderr).toContain(message)
    expect(result.stderr).not.toContain(key)
  })

  it('refuses an unknown --kind (exit 2)', async () => {
    const result = await harness({ stdin: key }).run('check', '--kind', 'admin')
    expect([result.code, result.stderr]).toEqual([
      EXIT.usage,
      "keyward: Option '--kind <kind>' argument 'admin' is invalid. Allowed choices are developer, project. Run 'keyward check --help'.\n",
    ])
  })
})

describe('keyward hash', () => {
  const key = generateKey()

  it('prints the SHA-256 a store keeps, for a key on stdin (CRLF trimmed once)', async () => {
    const result = await harness({ stdin: `${key}\r\n` }).run('hash')
    expect(result).toEqual({ code: EXIT.ok, stdout: `${await hashKey(key)}\n`, stderr: '' })
    const asJson = await harness({ stdin: key }).run('hash', '--json')
    expect(JSON.parse(asJson.stdout)).toEqual({
      hash: await hashKey(key),
      key_prefix: key.slice(0, 8),
      display: `${key.slice(0, 8)}...`,
    })
  })

  it('refuses a terminal with a hint, so the key stays out of history', async () => {
    const result = await harness({ tty: true }).run('hash')
    expect(result.code).toBe(EXIT.usage)
    expect(result.stderr).toContain('so that it stays out of your shell history and scrollback')
    expect(result.stderr).toContain('keyward hash < key.txt')
  })

  it('hashes a malformed value all the same, with a warning that does not echo it', async () => {
    const value = 'not-a-key-but-long-enough'
    const result = await harness({ stdin: value }).run('hash')
    expect(result.code).toBe(EXIT.ok)
    expect(result.stdout).toBe(`${await hashKey(value)}\n`)
    expect(result.stderr).toBe(
      'warning: not a well-formed key: Expected a developer key starting with ak_.\n',
    )
  })
})

describe('help, version and usage errors', () => {
  it('prints the command list for --help (exit 0) and for no arguments (stderr, exit 2)', async () => {
    const cli = harness()
    const help = await cli.run('--help')
    expect(help.code).toBe(EXIT.ok)
    for (const name of ['developers', 'keys', 'identities', 'generate', 'check', 'hash']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${name} `, 'm'))
    }
    expect(help.stdout).toContain('Exit codes: 0 success')
    const none = await cli.run()
    expect([none.code, none.stdout]).toEqual([EXIT.usage, ''])
    expect(none.stderr).toBe(help.stdout)
  })

  it.each([
    ['developers register'],
    ['developers list'],
    ['keys list'],
    ['keys revoke'],
    ['keys activate'],
    ['keys expire'],
    ['identities create'],
    ['identities delete'],
    ['generate'],
    ['check'],
    ['hash'],
  ])('keyward %s --help (and keyward help ...) describes the command and its exit codes', async (name) => {
    const cli = harness()
    const result = await cli.run(...name.split(' '), '--help')
    expect(result.code).toBe(EXIT.ok)
    expect(result.stdout).toMatch(new RegExp(`^Usage: keyward ${name}`))
    expect(result.stdout).toContain('Exit codes: 0 ')
    expect(result.stdout).toContain('--json')
    expect(await cli.run('help', ...name.split(' '))).toEqual(result)
  })

  it('prints the commands of a group for keyward keys --help, and exits 2 for keyward keys', async () => {
    const cli = harness()
    const help = await cli.run('keys', '--help')
    expect(help.code).toBe(EXIT.ok)
    expect(help.stdout).toContain('Usage: keyward keys [options] [command]')
    expect(help.stdout).toMatch(/^ {2}revoke .*<key-id>/m)
    expect(help.stdout).toMatch(/^ {2}activate .*<key-id>/m)
    expect(help.stdout).not.toContain('developers register')
    const bare = await cli.run('keys')
    expect([bare.code, bare.stderr]).toEqual([EXIT.usage, help.stdout])
  })

  it.each([
    [['deploy'], "keyward: Unknown command 'deploy'. Run 'keyward --help'.\n"],
    [['keys', 'delete', 'x'], "keyward: Unknown command 'delete'. Run 'keyward keys --help'.\n"],
    [
      ['keys', 'revok', 'x'],
      "keyward: Unknown command 'revok' (Did you mean revoke?) Run 'keyward keys --help'.\n",
    ],
    [
      ['generate', 'extra'],
      "keyward: Too many arguments for 'generate'. Expected 0 arguments but got 1. Run 'keyward generate --help'.\n",
    ],
    [['generate', '--count', '2'], "keyward: Unknown option '--count'. Run 'keyward generate --help'.\n"],
  ])('%j is a usage error in one line (exit 2)', async (argv, message) => {
    const result = await harness().run(...argv)
    expect([result.code, result.stdout, result.stderr]).toEqual([EXIT.usage, '', message])
    const asJson = await harness().run(...argv, '--json')
    expect(JSON.parse(asJson.stderr)).toEqual({
      detail: [{ loc: [], msg: message.slice('keyward: '.length, -1), type: 'usage_error' }],
    })
  })

  it('takes --json before the command too', async () => {
    const cli = harness()
    const result = await cli.run('--json', 'keys', 'list', '--project', 'p', ...STORE)
    expect([result.code, result.stdout]).toEqual([EXIT.ok, '{"keys":[],"next_cursor":null}\n'])
    const refused = await cli.run('--json', 'keys', 'revoke', 'no-such-id', ...STORE)
    expect(JSON.parse(refused.stderr).detail[0].type).toBe('not_found')
  })

  it('--version prints the package version', async () => {
    const { version } = await import('../package.json')
    expect(await harness().run('--version')).toEqual({ code: EXIT.ok, stdout: `${version}\n`, stderr: '' })
  })
})
