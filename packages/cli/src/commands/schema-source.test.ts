// `keyward schema drizzle` and `keyward schema prisma` with --dialect mysql and sqlite: the
// printed Drizzle module compiles, and it and the Prisma models describe the very tables the
// migrations create, read back from the database (PRAGMA table_info on SQLite,
// information_schema on MariaDB).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { mysqlDatabase } from '@keyward/mysql'
import {
  migrateSql,
  mysqlDialect,
  type SqlDatabase,
  type SqlDialect,
  sqliteDialect,
  sqlSchemaModel,
} from '@keyward/sql'
import { sqliteDatabase } from '@keyward/sqlite'
import Database from 'better-sqlite3'
import { getTableConfig as mysqlConfig } from 'drizzle-orm/mysql-core'
import { getTableConfig as sqliteConfig } from 'drizzle-orm/sqlite-core'
import mysql from 'mysql2/promise'
import ts from 'typescript'
import { afterAll, describe, expect, it } from 'vitest'
import { harness } from '../test/harness.js'

const MYSQL_URL = process.env.KEYWARD_MYSQL_URL
const PREFIX = 'auth_'
// The module is written beside the CLI's sources, where `drizzle-orm` resolves.
const HERE = fileURLToPath(new URL('.', import.meta.url))

/** A column as `table.column: type [NOT NULL] [PK]`; an index as `table index: [UNIQUE ](a, b)`. */
type Shape = string[]

// MariaDB prints display widths (`bigint(20)`); MySQL 8 and Drizzle do not.
const typeOf = (type: string) => type.toLowerCase().replace(/^(bigint|tinyint)\(\d+\)/, '$1')
const column = (table: string, name: string, type: string, notNull: boolean, pk: boolean) =>
  `${table}.${name}: ${typeOf(type)}${notNull ? ' NOT NULL' : ''}${pk ? ' PK' : ''}`
const index = (table: string, name: string, unique: boolean, columns: readonly string[]) =>
  `${table} ${name}: ${unique ? 'UNIQUE ' : ''}(${columns.join(', ')})`

/** The tables as the database holds them. */
async function liveShape(db: SqlDatabase, dialect: SqlDialect): Promise<Shape> {
  const shape: Shape = []
  for (const { name: table } of sqlSchemaModel(PREFIX)) {
    for (const c of await db.query<{ name: string; type: string; not_null: unknown; pk: unknown }>(
      dialect.columnsQuery,
      [table],
    ))
      shape.push(column(table, c.name, c.type, Number(c.not_null) === 1, Number(c.pk) === 1))
    for (const i of await db.query<{ name: string; is_unique: unknown; columns: string }>(
      dialect.indexesQuery,
      [table],
    ))
      shape.push(index(table, i.name, Number(i.is_unique) === 1, String(i.columns).split(',')))
  }
  expect(shape.length).toBeGreaterThan(60)
  return shape.sort()
}

/** Prints the Drizzle module, checks that it compiles, and returns the tables it describes. */
async function drizzleShape(dialect: 'mysql' | 'sqlite'): Promise<Shape> {
  const printed = await harness().run('schema', 'drizzle', '--dialect', dialect, '--table-prefix', PREFIX)
  expect(printed).toMatchObject({ code: 0, stderr: '' })
  const dir = mkdtempSync(join(HERE, '.drizzle-'))
  try {
    const file = join(dir, 'keyward-schema.ts')
    writeFileSync(file, printed.stdout)
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
    })
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
    expect(problems).toEqual([])
    const tables = Object.values(await import(/* @vite-ignore */ file))
    const shape: Shape = []
    for (const table of tables) {
      const config = (dialect === 'mysql' ? mysqlConfig : sqliteConfig)(table as never)
      const keys = config.primaryKeys.flatMap((key) => key.columns.map((c) => c.name))
      for (const c of config.columns)
        shape.push(column(config.name, c.name, c.getSQLType(), c.notNull, c.primary || keys.includes(c.name)))
      for (const i of config.indexes)
        shape.push(
          index(
            config.name,
            i.config.name,
            i.config.unique === true,
            i.config.columns.map((c) => (c as { name: string }).name),
          ),
        )
    }
    return shape.sort()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const PRISMA_SQL: Record<'mysql' | 'sqlite', (type: string, native: string | undefined) => string> = {
  mysql: (type, native) =>
    native
      ? native.toLowerCase()
      : (({ BigInt: 'bigint', Int: 'int', String: 'longtext' } as Record<string, string>)[type] ?? type),
  sqlite: (type) => ({ BigInt: 'integer', Int: 'integer', String: 'text' })[type as 'Int'] ?? type,
}

/** Prints the Prisma models and returns the tables they describe. */
async function prismaShape(dialect: 'mysql' | 'sqlite'): Promise<Shape> {
  const printed = await harness().run('schema', 'prisma', '--dialect', dialect, '--table-prefix', PREFIX)
  expect(printed).toMatchObject({ code: 0, stderr: '' })
  expect(printed.stdout).toContain(`provider = "${dialect}"`)
  const shape: Shape = []
  for (const [, body] of printed.stdout.matchAll(/^model \w+ \{\n([\s\S]*?)\n\}/gm)) {
    const lines = (body as string).split('\n').map((line) => line.trim())
    const table = /@@map\("(\w+)"\)/.exec(body as string)?.[1] as string
    const compound = /@@id\(\[(.+)\]\)/.exec(body as string)?.[1]?.split(', ') ?? []
    const fieldColumns = new Map<string, string>()
    for (const line of lines) {
      const field = /^(\w+) (\w+)(\??)(.*)$/.exec(line)
      if (!field) continue
      const [, name, type, optional, attributes] = field as unknown as [
        string,
        string,
        string,
        string,
        string,
      ]
      const columnName = /@map\("(\w+)"\)/.exec(attributes)?.[1] ?? name
      fieldColumns.set(name, columnName)
      const native = /@db\.(\w+(?:\(\d+\))?)/.exec(attributes)?.[1]
      const pk = attributes.includes('@id') || compound.includes(name)
      shape.push(column(table, columnName, PRISMA_SQL[dialect](type, native), optional === '', pk))
    }
    for (const line of lines) {
      const block = /^@@(unique|index)\(\[(.+)\], map: "(\w+)"\)$/.exec(line)
      if (block)
        shape.push(
          index(
            table,
            block[3] as string,
            block[1] === 'unique',
            (block[2] as string).split(', ').map((name) => fieldColumns.get(name) as string),
          ),
        )
    }
  }
  return shape.sort()
}

describe('keyward schema drizzle and prisma on SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keyward-schema-source-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('prints tables that compile and match the migrated file, column for column and index for index', async () => {
    const db = sqliteDatabase(new Database(join(dir, 'keys.db')))
    try {
      await migrateSql(db, sqliteDialect, { tablePrefix: PREFIX })
      const live = await liveShape(db, sqliteDialect)
      expect(await drizzleShape('sqlite')).toEqual(live)
      expect(await prismaShape('sqlite')).toEqual(live)
    } finally {
      await db.close?.()
    }
  }, 60_000)

  it('refuses PostgreSQL and an unknown dialect with a usage error', async () => {
    const postgres = await harness().run('schema', 'drizzle')
    expect(postgres.code).toBe(2)
    expect(postgres.stderr).toContain('@keyward/postgres/drizzle')
    const prisma = await harness().run('schema', 'prisma', '--dialect', 'postgres')
    expect(prisma.stderr).toContain('@keyward/postgres/prisma/keyward.prisma')
    expect((await harness().run('schema', 'prisma', '--dialect', 'oracle')).code).toBe(2)
    expect(
      (await harness().run('schema', 'drizzle', '--dialect', 'mysql', '--table-prefix', 'Bad')).code,
    ).toBe(2)
  })
})

describe.skipIf(!MYSQL_URL)(
  'keyward schema drizzle and prisma on MariaDB (set KEYWARD_MYSQL_URL to run)',
  () => {
    const database = `kw_source_${process.pid}_${Date.now().toString(36)}`
    afterAll(async () => {
      const admin = await mysql.createConnection(MYSQL_URL as string)
      await admin.query(`DROP DATABASE IF EXISTS ${database}`)
      await admin.end()
    })

    it('prints tables that compile and match information_schema, column for column and index for index', async () => {
      const admin = await mysql.createConnection(MYSQL_URL as string)
      await admin.query(`CREATE DATABASE ${database}`)
      await admin.end()
      const address = new URL(MYSQL_URL as string)
      address.pathname = `/${database}`
      const db = mysqlDatabase(mysql.createPool(address.toString()), { ownsPool: true })
      try {
        await migrateSql(db, mysqlDialect, { tablePrefix: PREFIX })
        const live = await liveShape(db, mysqlDialect)
        expect(await drizzleShape('mysql')).toEqual(live)
        expect(await prismaShape('mysql')).toEqual(live)
      } finally {
        await db.close?.()
      }
    }, 60_000)
  },
)
