// The Prisma fragment shipped in `prisma/keyward.prisma` against Keyward's migrations, read from
// the catalog of a schema they made: every table, column (type, NOT NULL, default), primary key
// and plain index has its model, field or attribute, and what Prisma cannot express is named in
// the fragment's header. A schema version that changes a table without the fragment fails here.
import { readFileSync } from 'node:fs'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CatalogEntry, catalogOf } from './doctor.js'
import { migrate } from './migrate.js'
import { pgDriver } from './pg.js'
import { MIGRATIONS } from './schema.js'
import { PG_URL, uniqueSchema } from './test/harness.js'

const FRAGMENT = readFileSync(new URL('../prisma/keyward.prisma', import.meta.url), 'utf8')

/** A field's Prisma type and attributes as PostgreSQL's column definition (as `catalogOf` prints it). */
function columnOf(type: string, optional: boolean, list: boolean, attributes: string): string {
  const native = /@db\.(\w+)/.exec(attributes)?.[1]
  const base: Record<string, string> = {
    Int: native === 'SmallInt' ? 'smallint' : 'integer',
    BigInt: 'bigint',
    String: native === 'Uuid' ? 'uuid' : 'text',
    Boolean: 'boolean',
    // @db.Timestamptz(6) is PostgreSQL's default precision, which the catalog prints without a number.
    DateTime: native === 'Timestamptz' ? 'timestamp with time zone' : 'timestamp(3) without time zone',
    Json: native === 'JsonB' ? 'jsonb' : 'json',
  }
  const sqlType = `${base[type] ?? `unknown ${type}`}${list ? '[]' : ''}`
  const given = /@default\((dbgenerated\("[^"]*"\)|[^)]*\)?)\)/.exec(attributes)?.[1]
  // dbgenerated("...") is the SQL of the default as it is.
  const fallback = given === undefined ? undefined : (/^dbgenerated\("(.*)"\)$/.exec(given)?.[1] ?? given)
  // Scalar lists are nullable columns in PostgreSQL.
  return `${sqlType}${optional || list ? '' : ' NOT NULL'}${fallback ? ` DEFAULT ${fallback}` : ''}`
}

/** The models of the fragment as catalog entries of `schema`: tables, columns, keys, unique indexes. */
function entriesOf(fragment: string, schema: string): CatalogEntry[] {
  const entries: CatalogEntry[] = []
  for (const [, body] of fragment.matchAll(/^model \w+ \{\n([\s\S]*?)\n\}/gm)) {
    const table = /@@map\("(\w+)"\)/.exec(body as string)?.[1] as string
    expect(/@@schema\("(\w+)"\)/.exec(body as string)?.[1]).toBe('keyward')
    entries.push({ kind: 'table', name: table, table, definition: '' })
    const fieldColumns = new Map<string, string>()
    for (const line of (body as string).split('\n').map((l) => l.trim())) {
      const field = /^(\w+)\s+(\w+)(\[\])?(\?)?\s*(.*)$/.exec(line)
      if (!field || line.startsWith('@@')) continue
      const [, name, type, list, optional, attributes = ''] = field as unknown as string[]
      const column = /@map\("(\w+)"\)/.exec(attributes)?.[1] ?? (name as string)
      fieldColumns.set(name as string, column)
      entries.push({
        kind: 'column',
        name: `${table}.${column}`,
        table,
        definition: columnOf(type as string, optional !== undefined, list !== undefined, attributes),
      })
      const id = /@id\(map: "(\w+)"\)/.exec(attributes)?.[1]
      if (id)
        entries.push({
          kind: 'constraint',
          name: `${table}.${id}`,
          table,
          definition: `PRIMARY KEY (${column})`,
        })
      const unique = /@unique\(map: "(\w+)"\)/.exec(attributes)?.[1]
      if (unique) {
        entries.push({
          kind: 'index',
          name: unique,
          table,
          definition: `CREATE UNIQUE INDEX ${unique} ON ${schema}.${table} USING btree (${column})`,
        })
      }
    }
    const compound = /@@id\(\[([\w, ]+)\], map: "(\w+)"\)/.exec(body as string)
    if (compound) {
      const columns = (compound[1] as string).split(',').map((f) => fieldColumns.get(f.trim()))
      entries.push({
        kind: 'constraint',
        name: `${table}.${compound[2]}`,
        table,
        definition: `PRIMARY KEY (${columns.join(', ')})`,
      })
    }
    // A plain index: `@@index([field, field(sort: Desc)], map: "name")`, or a unique one (`@@unique`).
    for (const [, kind, fields, name] of (body as string).matchAll(
      /@@(index|unique)\(\[([^\]]+)\], map: "(\w+)"\)/g,
    )) {
      const columns = (fields as string).split(',').map((f) => {
        const [, field, desc] = /(\w+)(\(sort: Desc\))?/.exec(f.trim()) as unknown as string[]
        return `${fieldColumns.get(field as string)}${desc ? ' DESC' : ''}`
      })
      entries.push({
        kind: 'index',
        name: name as string,
        table,
        definition: `CREATE ${kind === 'unique' ? 'UNIQUE ' : ''}INDEX ${name} ON ${schema}.${table} USING btree (${columns.join(', ')})`,
      })
    }
  }
  return entries
}

describe('the Prisma fragment', () => {
  it('says which schema version it mirrors: the newest', () => {
    expect(FRAGMENT).toContain(`(schema version ${MIGRATIONS.at(-1)?.version})`)
  })

  // Prisma's own check (`prisma migrate diff --from-empty --to-schema-datamodel`) needs its schema
  // engine, a binary that Prisma downloads when it is installed; this machine reaches no download
  // host besides the package registry, so the fragment is compared with the catalog as text below.
  it.skip('prisma migrate diff creates the same tables (needs the Prisma schema engine download)', () => {})
})

describe.skipIf(!PG_URL)('the Prisma fragment against the migrations (set KEYWARD_PG_URL to run)', () => {
  const admin = new pg.Client({ connectionString: PG_URL })
  const schema = uniqueSchema()
  beforeAll(async () => {
    await admin.connect()
    await migrate(pgDriver(admin, { queryTimeoutMs: 30_000 }), { schema })
  })
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await admin.end()
  })

  it('has every table, column, primary key and plain index, each as the migrations make it', async () => {
    const catalog = await catalogOf(pgDriver(admin), schema)
    const key = (e: CatalogEntry) => `${e.kind} ${e.name}: ${e.definition}`
    const prismaCan = catalog.filter(
      (e) =>
        e.kind === 'table' ||
        e.kind === 'column' ||
        (e.kind === 'constraint' && e.definition.startsWith('PRIMARY KEY')) ||
        (e.kind === 'index' &&
          !e.definition.includes(' WHERE ') &&
          !e.name.endsWith('_pkey') &&
          // Only where pg_trgm is installed; named in the header.
          !e.name.endsWith('_trgm_idx')),
    )
    expect(entriesOf(FRAGMENT, schema).map(key).sort()).toEqual(prismaCan.map(key).sort())
  })

  it('names in its header each partial index it cannot express', async () => {
    const catalog = await catalogOf(pgDriver(admin), schema)
    const partial = catalog.filter((e) => e.kind === 'index' && e.definition.includes(' WHERE '))
    expect(partial.length).toBeGreaterThan(0)
    for (const index of partial) expect(FRAGMENT).toContain(index.name)
  })

  it('names in its header the trigram indexes that only a server with pg_trgm has', () => {
    for (const name of ['api_keys_name_trgm_idx', 'identities_external_id_trgm_idx'])
      expect(FRAGMENT).toContain(name)
  })
})
