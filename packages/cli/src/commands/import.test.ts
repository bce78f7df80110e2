import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKeyward, MemoryKeyStore } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import { EXIT } from '../exit.js'
import { harness, STORE } from '../test/harness.js'

const dir = mkdtempSync(join(tmpdir(), 'keyward-import-'))

const keyOf = (i: number) => `ba_${String(i).padStart(6, '0')}${'k'.repeat(24)}`
const b64url = (key: string) => createHash('sha256').update(key).digest('base64url')
const file = (name: string, text: string) => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}
const line = (i: number, fields: Record<string, unknown> = {}) =>
  JSON.stringify({ hash: b64url(keyOf(i)), project_id: 'proj_c', prefix: 'ba_', name: `k${i}`, ...fields })

function world() {
  const cli = harness()
  const verifier = () =>
    createKeyward({
      store: new MemoryKeyStore({ records: cli.records }),
      foreignKeys: [{ prefix: 'ba_', minLength: 20, maxLength: 80 }],
    })
  const verifies = (i: number) =>
    verifier()
      .verifyApiKey({ projectKey: keyOf(i) }, { projectId: 'proj_c' })
      .then(
        () => true,
        () => false,
      )
  return { cli, verifies }
}

describe('keyward import', () => {
  it('imports an NDJSON file in batches; bad records get a line each (number, field, never the hash)', async () => {
    const { cli, verifies } = world()
    const bad = b64url(keyOf(3)).slice(0, 40)
    const path = file(
      'keys.ndjson',
      [line(1), line(2, { expires_at: 'tomorrow' }), '', line(3, { hash: bad }), '{oops', line(4)].join('\n'),
    )
    const result = await cli.run(
      'import',
      '--file',
      path,
      '--hash-format',
      'sha256-base64url',
      '--batch',
      '2',
      ...STORE,
    )
    expect(result.code).toBe(EXIT.failed)
    expect(result.stdout.split('\n').slice(0, 3)).toEqual([
      'record 2: expires_at: Input should be an ISO 8601 date and time with an offset, e.g. 2027-01-31T00:00:00Z. [datetime_parsing]',
      expect.stringMatching(/^record 3: hash: A sha256-base64url hash is 43 characters .* \[value_error\]$/),
      'record 4: (record): The line is not valid JSON. [json_invalid]',
    ])
    expect(result.stdout).toContain('5 records read: imported 2, 0 already present, 3 bad')
    expect(result.stdout).not.toContain(bad)
    expect(result.stderr).toContain('2 records done: 1 written')
    expect([await verifies(1), await verifies(2), await verifies(4)]).toEqual([true, false, true])
  })

  it('reads CSV by its extension, with quoted values; --json gives the report', async () => {
    const { cli, verifies } = world()
    const path = file(
      'keys.csv',
      [
        'hash,hash_format,project_id,name,prefix,remaining,refill_amount,refill_interval,permissions,metadata',
        `${b64url(keyOf(5))},sha256-base64url,proj_c,"ci, nightly",ba_,10,10,daily,files:read files:write,"{""plan"":""pro""}"`,
        `${b64url(keyOf(6))},sha256-base64url,proj_c,,ba_,,,,,`,
      ].join('\r\n'),
    )
    const result = await cli.run('import', '--file', path, '--json', ...STORE)
    expect(result.code).toBe(EXIT.ok)
    expect(JSON.parse(result.stdout)).toMatchObject({ cursor: 2, written: 2, invalid: 0, dry_run: false })
    expect(await verifies(5)).toBe(true)
    const [record] = [...cli.records.values()].filter((r) => r.name === 'ci, nightly')
    expect(record).toMatchObject({
      remaining: 10,
      permissions: ['files:read', 'files:write'],
      metadata: { plan: 'pro' },
      keyPrefix: 'ba_*****',
    })
  })

  it('resumes from --cursor-file, and a second run changes nothing', async () => {
    const { cli } = world()
    const lines = Array.from({ length: 5 }, (_, i) => line(i + 10, { hash_format: 'sha256-base64url' }))
    const cursorFile = join(dir, 'cursor')
    writeFileSync(cursorFile, '3\n')
    const path = file('resume.ndjson', lines.join('\n'))
    const first = await cli.run('import', '--file', path, '--cursor-file', cursorFile, ...STORE)
    expect(first.stdout).toContain('5 records read: imported 2, 0 already present, 0 bad')
    expect(readFileSync(cursorFile, 'utf8')).toBe('5\n')
    const again = await cli.run('import', '--file', path, ...STORE)
    expect(again.stdout).toContain('5 records read: imported 3, 2 already present, 0 bad')
    const third = await cli.run('import', '--file', path, ...STORE)
    expect(third.stdout).toContain('5 records read: imported 0, 5 already present, 0 bad')
    expect(cli.records.size).toBe(5)
  })

  it('--dry-run writes nothing; --strict stops before the batch of the first bad record', async () => {
    const { cli } = world()
    const path = file(
      'strict.ndjson',
      [1, 2, 3]
        .map((i) => line(i + 20, { hash_format: 'sha256-base64url', active: i === 3 ? 'maybe' : true }))
        .join('\n'),
    )
    const dry = await cli.run('import', '--file', path, '--dry-run', ...STORE)
    expect(dry.stdout).toContain('3 records read: would import 2, 0 already present, 1 bad')
    expect(cli.records.size).toBe(0)
    const strict = await cli.run('import', '--file', path, '--strict', '--batch', '2', ...STORE)
    expect(strict.code).toBe(EXIT.failed)
    expect(strict.stdout).toContain('stopped at the first bad record by --strict; records done: 2')
    expect(cli.records.size).toBe(2)
  })

  it('refuses bad options as usage errors', async () => {
    const { cli } = world()
    const path = file('x.txt', '')
    for (const [args, message] of [
      [[], 'Give one of --file PATH or --from better-auth.'],
      [['--file', path], 'give --format ndjson or csv'],
      [['--file', join(dir, 'missing.ndjson')], 'is not a file that can be read'],
      [['--file', path, '--format', 'csv', '--batch', '0'], '--batch must be a whole number'],
      [['--from', 'better-auth'], '--from better-auth needs --source-url URL'],
    ] as const) {
      const result = await cli.run('import', ...args, ...STORE)
      expect(result.code).toBe(EXIT.usage)
      expect(result.stderr).toContain(message)
    }
  })
})
