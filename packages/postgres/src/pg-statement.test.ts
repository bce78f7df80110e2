import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { SqlRow } from './driver.js'
import { runStatement } from './pg-statement.js'
import { PG_URL, uniqueSchema } from './test/harness.js'

const run = (client: pg.ClientBase, text: string, values?: unknown[], name?: string) =>
  new Promise<SqlRow[] | undefined>((resolve, reject) =>
    runStatement(client, text, values, name, (error, rows) => (error ? reject(error) : resolve(rows))),
  )

// node-postgres' own answer to the same statement, to compare with.
const own = async (client: pg.ClientBase, text: string, values?: unknown[]) =>
  (await client.query({ text, values })).rows

// What `client.query` is given, call by call.
function submissions(client: pg.ClientBase): unknown[] {
  const submitted: unknown[] = []
  const query = client.query.bind(client)
  client.query = ((config: unknown, ...rest: unknown[]) => {
    submitted.push(config)
    return (query as (...args: unknown[]) => unknown)(config, ...rest)
  }) as typeof client.query
  return submitted
}

describe.skipIf(!PG_URL)('runStatement on node-postgres (set KEYWARD_PG_URL to run)', () => {
  const schema = uniqueSchema()
  const table = `"${schema}".kinds`
  const clients: pg.Client[] = []
  const connect = async (config: pg.ClientConfig = {}) => {
    const client = new pg.Client({ connectionString: PG_URL, ...config })
    await client.connect()
    clients.push(client)
    return client
  }
  let client: pg.Client

  beforeAll(async () => {
    client = await connect()
    await client.query(`CREATE SCHEMA "${schema}"`)
    // Every kind of column the store reads, and some it does not.
    await client.query(`CREATE TABLE ${table} (
      n int PRIMARY KEY, id uuid, label text, on_off boolean, at timestamptz, day date,
      tags text[], doc jsonb, big bigint, small smallint, price numeric, raw bytea, span interval)`)
    await client.query(`INSERT INTO ${table} VALUES
      (1, gen_random_uuid(), 'one', true, '2026-11-26 15:06:30.123456+00', '2026-11-26',
       '{a,"b c",NULL}', '{"k":[1,{"x":null}]}', 9007199254740993, -2, 12.50, '\\x00ff', '1 day 02:03:04'),
      (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (3, gen_random_uuid(), '', false, 'infinity', '-infinity', '{}', 'null', 0, 0, 0, '\\x', '0')`)
  })

  afterAll(async () => {
    await clients[0]?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await Promise.all(clients.map((c) => c.end()))
  })

  it('answers every row as client.query does, named or not', async () => {
    const text = `SELECT *, n AS again, label AS n FROM ${table} WHERE n >= $1 ORDER BY 1`
    const expected = await own(client, text, [1])
    expect(expected).toHaveLength(3)
    expect(await run(client, text, [1], 'kinds_from')).toEqual(expected)
    expect(await run(client, text, [1], 'kinds_from')).toEqual(expected)
    expect(await run(client, text, [1])).toEqual(expected)
    expect(await run(client, `SELECT * FROM ${table} WHERE n = $1`, [42], 'kinds_none')).toEqual([])
    // Values are sent as node-postgres sends them: dates, arrays, objects, buffers, null.
    const echo =
      'SELECT $1::timestamptz AS at, $2::text[] AS tags, $3::jsonb AS doc, $4::bytea AS raw, $5::int AS none'
    const values = [new Date('2026-01-02T03:04:05.678Z'), ['x', 'y"z'], { a: [1] }, Buffer.from([1, 2]), null]
    expect(await run(client, echo, values, 'echo')).toEqual(await own(client, echo, values))
  })

  it("applies the client's own type parsers", async () => {
    const types = {
      getTypeParser: ((oid: number, format?: string) =>
        oid === pg.types.builtins.TIMESTAMPTZ
          ? (value: string) => `at ${value}`
          : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    }
    const custom = await connect({ types })
    const text = `SELECT at FROM ${table} WHERE n = $1`
    expect(await run(custom, text, [1], 'kinds_at')).toEqual([{ at: 'at 2026-11-26 15:06:30.123456+00' }])
    expect(await run(custom, text, [1], 'kinds_at')).toEqual(await own(custom, text, [1]))
  })

  it('parses a named statement once per connection', async () => {
    const other = await connect()
    const text = 'SELECT $1::int + 1 AS next'
    for (let i = 0; i < 3; i++) expect(await run(other, text, [i], 'next_one')).toEqual([{ next: i + 1 }])
    const prepared = await other.query(
      "SELECT count(*)::int AS count FROM pg_prepared_statements WHERE name = 'next_one'",
    )
    expect(prepared.rows).toEqual([{ count: 1 }])
    await expect(run(other, 'SELECT 2 AS other WHERE $1::int = 1', [1], 'next_one')).rejects.toThrow(
      "Prepared statements must be unique - 'next_one' was used for a different statement",
    )
    expect(await run(other, text, [5], 'next_one')).toEqual([{ next: 6 }])
  })

  it("rejects with the server's error, and the connection answers the next statement", async () => {
    const other = await connect()
    await expect(
      run(other, `SELECT * FROM ${table} WHERE id = $1`, ['not-a-uuid'], 'kinds_id'),
    ).rejects.toMatchObject({
      code: '22P02',
      severity: 'ERROR',
    })
    // A statement whose parse failed is not taken for parsed.
    await expect(run(other, 'SELEC $1::int', [1], 'broken')).rejects.toMatchObject({ code: '42601' })
    await expect(run(other, 'SELEC $1::int', [1], 'broken')).rejects.toMatchObject({ code: '42601' })
    expect(await run(other, 'SELECT $1::int AS one', [1], 'broken_fixed')).toEqual([{ one: 1 }])
    expect((await other.query('SELECT 1 AS still')).rows).toEqual([{ still: 1 }])
  })

  it('rejects a value that cannot be sent before anything runs, and the connection goes on', async () => {
    const other = await connect()
    const circular: Record<string, unknown> = {}
    circular.self = circular
    const text = 'SELECT $1::jsonb AS doc'
    // The first use of the name: its parse is sent, its bind is not.
    await expect(run(other, text, [circular], 'doc_of')).rejects.toThrow(TypeError)
    expect(await run(other, text, [{ ok: true }], 'doc_of')).toEqual([{ doc: { ok: true } }])
    await expect(run(other, text, [circular], 'doc_of')).rejects.toThrow(TypeError)
    expect(await run(other, text, [{ n: [1] }], 'doc_of')).toEqual([{ doc: { n: [1] } }])
  })

  it('rejects when a column cannot be read, once the server is done, and the connection goes on', async () => {
    const failing = await connect({
      types: {
        getTypeParser: ((oid: number, format?: string) =>
          oid === pg.types.builtins.INT8
            ? () => {
                throw new RangeError('too big')
              }
            : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
      },
    })
    await expect(run(failing, `SELECT big FROM ${table} WHERE n = $1`, [1], 'big_of')).rejects.toThrow(
      'too big',
    )
    expect(await run(failing, `SELECT label FROM ${table} WHERE n = $1`, [1], 'label_of')).toEqual([
      { label: 'one' },
    ])
  })

  it('reads the columns the server describes now, when a statement changes shape', async () => {
    const other = await connect()
    await other.query(`CREATE TABLE "${schema}".shifting (a int)`)
    await other.query(`INSERT INTO "${schema}".shifting VALUES (1)`)
    const text = `SELECT * FROM "${schema}".shifting WHERE a = $1`
    expect(await run(other, text, [1])).toEqual([{ a: 1 }])
    await other.query(`ALTER TABLE "${schema}".shifting ADD COLUMN b text DEFAULT 'bee'`)
    expect(await run(other, text, [1])).toEqual([{ a: 1, b: 'bee' }])
    await other.query(`ALTER TABLE "${schema}".shifting ALTER COLUMN a TYPE text`)
    expect(await run(other, text, ['1'])).toEqual([{ a: '1', b: 'bee' }])
  })

  it("keeps node-postgres' query_timeout and binary settings", async () => {
    const timed = await connect({ query_timeout: 100 })
    await expect(run(timed, 'SELECT pg_sleep($1::float8)', [0.5], 'sleep_for')).rejects.toThrow(
      'Query read timeout',
    )
    const binary = await connect({ binary: true } as pg.ClientConfig)
    const text = `SELECT n, label, on_off FROM ${table} WHERE n = $1`
    expect(await run(binary, text, [1], 'binary_of')).toEqual(await own(binary, text, [1]))
  })

  it("goes through node-postgres' own query before 8.15, whose pg.utils is missing", async () => {
    const module = pg as unknown as { utils?: unknown }
    const utils = module.utils
    delete module.utils
    try {
      vi.resetModules()
      const older = await import('./pg-statement.js')
      const other = await connect()
      const submitted = submissions(other)
      const text = `SELECT * FROM ${table} WHERE n >= $1 ORDER BY 1`
      const rows = await new Promise((resolve, reject) =>
        older.runStatement(other, text, [1], 'kinds_older', (error, result) =>
          error ? reject(error) : resolve(result),
        ),
      )
      expect(submitted[0]).toEqual({ text, values: [1], name: 'kinds_older' })
      expect(rows).toEqual(await own(client, text, [1]))
    } finally {
      module.utils = utils
      vi.resetModules()
    }
  })

  it("runs statements without parameters or name, several in one, through node-postgres' own query", async () => {
    const other = await connect()
    const submitted = submissions(other)
    expect(await run(other, 'SELECT $1::int AS one', [1])).toEqual([{ one: 1 }])
    expect(submitted[0]).not.toBeInstanceOf(pg.Query)
    expect(submitted[0]).toHaveProperty('submit')
    expect(await run(other, 'SELECT 1 AS one')).toEqual([{ one: 1 }])
    expect(submitted[1]).toEqual({ text: 'SELECT 1 AS one', values: undefined, name: undefined })
    await run(other, 'BEGIN; SET LOCAL statement_timeout = 1000')
    expect(await run(other, 'SHOW statement_timeout')).toEqual([{ statement_timeout: '1s' }])
    await run(other, 'COMMIT')
    expect(await run(other, 'SHOW statement_timeout')).toEqual([{ statement_timeout: '0' }])
  })
})
