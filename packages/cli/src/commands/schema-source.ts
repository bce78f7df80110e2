// Keyward's tables of @keyward/mysql and @keyward/sqlite as source for the application's own
// tools: Drizzle tables (mysqlTable, sqliteTable) and Prisma models, printed from the one
// description the migrations are (`sqlSchemaModel`), under the application's table prefix.
import { SQL_SCHEMA_VERSION, type SqlColumnKind, type SqlTableModel, sqlSchemaModel } from '@keyward/sql'

/** The dialects of the shared SQL layer. */
export type SqlDialectName = 'mysql' | 'sqlite'

const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())
const pascal = (name: string) => camel(name).replace(/^[a-z]/, (c) => c.toUpperCase())
/** The table's name without the prefix: `api_keys`; the migrations' own table keeps Keyward's name. */
const bare = (table: SqlTableModel, prefix: string) => {
  const name = table.name.slice(prefix.length)
  return name === 'migrations' ? 'keyward_migrations' : name
}

const DRIZZLE_TYPES: Record<SqlDialectName, Record<SqlColumnKind, (name: string) => string>> = {
  mysql: {
    uuid: (name) => `char('${name}', { length: 36 })`,
    hash: (name) => `char('${name}', { length: 64 })`,
    key: (name) => `varchar('${name}', { length: 255 })`,
    word: (name) => `varchar('${name}', { length: 32 })`,
    text: (name) => `mediumtext('${name}')`,
    bigint: (name) => `bigint('${name}', { mode: 'number' })`,
    flag: (name) => `tinyint('${name}')`,
  },
  sqlite: {
    uuid: (name) => `text('${name}')`,
    hash: (name) => `text('${name}')`,
    key: (name) => `text('${name}')`,
    word: (name) => `text('${name}')`,
    text: (name) => `text('${name}')`,
    bigint: (name) => `integer('${name}')`,
    flag: (name) => `integer('${name}')`,
  },
}

/**
 * Keyward's tables as a Drizzle schema module: one `mysqlTable` or `sqliteTable` per table, with
 * its columns, primary key and indexes.
 */
export function drizzleSource(dialect: SqlDialectName, prefix: string): string {
  const tables = sqlSchemaModel(prefix)
  const builders = new Set<string>(['index', 'primaryKey', 'uniqueIndex'])
  const blocks = tables.map((table) => {
    const single = table.primaryKey.length === 1 ? table.primaryKey[0] : undefined
    const columns = table.columns.map((column) => {
      const type = DRIZZLE_TYPES[dialect][column.kind](column.name)
      builders.add(type.slice(0, type.indexOf('(')))
      const key = column.name === single ? '.primaryKey()' : ''
      return `  ${camel(column.name)}: ${type}${column.notNull ? '.notNull()' : ''}${key},`
    })
    const extras = [
      ...(single === undefined
        ? [`primaryKey({ columns: [${table.primaryKey.map((name) => `t.${camel(name)}`).join(', ')}] })`]
        : []),
      ...table.indexes.map(
        (index) =>
          `${index.unique ? 'uniqueIndex' : 'index'}('${index.name}').on(${index.columns.map((name) => `t.${camel(name)}`).join(', ')})`,
      ),
    ]
    const table_ = dialect === 'mysql' ? 'mysqlTable' : 'sqliteTable'
    const tail = extras.length === 0 ? '' : `, (t) => [\n  ${extras.join(',\n  ')},\n]`
    return `export const ${camel(bare(table, prefix))} = ${table_}('${table.name}', {\n${columns.join('\n')}\n}${tail})\n`
  })
  builders.add(dialect === 'mysql' ? 'mysqlTable' : 'sqliteTable')
  const used = [...builders].filter((name) => blocks.some((block) => block.includes(`${name}(`))).sort()
  return [
    `// Keyward's tables (schema version ${SQL_SCHEMA_VERSION}, @keyward/${dialect}) for Drizzle, printed by`,
    `// \`keyward schema drizzle --dialect ${dialect}\`. Keyward's migrations create them, not drizzle-kit:`,
    '// keep drizzle-kit off them (tablesFilter) and write keys through Keyward only. Times are milliseconds',
    '// since 1970, flags 0 or 1, lists and objects JSON text.',
    ...(dialect === 'mysql'
      ? ['// The migrations also give each table ENGINE=InnoDB and the collation utf8mb4_bin.']
      : []),
    `import { ${used.join(', ')} } from 'drizzle-orm/${dialect === 'mysql' ? 'mysql-core' : 'sqlite-core'}'`,
    '',
    blocks.join('\n'),
  ].join('\n')
}

const PRISMA_TYPES: Record<SqlDialectName, Record<SqlColumnKind, string>> = {
  mysql: {
    uuid: 'String @db.Char(36)',
    hash: 'String @db.Char(64)',
    key: 'String @db.VarChar(255)',
    word: 'String @db.VarChar(32)',
    text: 'String @db.MediumText',
    bigint: 'BigInt',
    flag: 'Int @db.TinyInt',
  },
  sqlite: {
    uuid: 'String',
    hash: 'String',
    key: 'String',
    word: 'String',
    text: 'String',
    bigint: 'BigInt',
    flag: 'Int',
  },
}

/** Keyward's tables as Prisma models, each mapped (`@@map`) to its prefixed table. */
export function prismaSource(dialect: SqlDialectName, prefix: string): string {
  const models = sqlSchemaModel(prefix).map((table) => {
    const single = table.primaryKey.length === 1 ? table.primaryKey[0] : undefined
    const fields = table.columns.map((column) => {
      const [type, ...native] = PRISMA_TYPES[dialect][column.kind].split(' ')
      const attributes = [
        ...(column.name === single ? ['@id'] : []),
        ...(camel(column.name) === column.name ? [] : [`@map("${column.name}")`]),
        ...native,
      ]
      return `  ${camel(column.name)} ${type}${column.notNull ? '' : '?'}${attributes.length === 0 ? '' : ` ${attributes.join(' ')}`}`
    })
    const fieldsOf = (names: readonly string[]) => `[${names.map(camel).join(', ')}]`
    const blocks = [
      ...(single === undefined ? [`  @@id(${fieldsOf(table.primaryKey)})`] : []),
      ...table.indexes.map(
        (index) =>
          `  @@${index.unique ? 'unique' : 'index'}(${fieldsOf(index.columns)}, map: "${index.name}")`,
      ),
      `  @@map("${table.name}")`,
    ]
    return `model ${pascal(`keyward_${bare(table, prefix).replace(/^keyward_/, '')}`)} {\n${fields.join('\n')}\n\n${blocks.join('\n')}\n}\n`
  })
  return [
    `// Keyward's tables (schema version ${SQL_SCHEMA_VERSION}, @keyward/${dialect}) for a Prisma schema whose`,
    `// datasource has provider = "${dialect}", printed by \`keyward schema prisma --dialect ${dialect}\`.`,
    "// Keyward's migrations create them, not Prisma Migrate: put the output of",
    `// \`keyward schema sql --dialect ${dialect}\` in a migration of yours, and write keys through Keyward only.`,
    '// Times are milliseconds since 1970, flags 0 or 1, lists and objects JSON text.',
    '',
    models.join('\n'),
  ].join('\n')
}
