// Keyward's tables as data: the columns, keys and indexes that `sqlMigrations` creates, read back
// from its own statements (written in kinds instead of a dialect's types), so that the printed
// Drizzle and Prisma definitions and the schema check follow the one description.
import type { SqlColumnTypes, SqlDialect } from './dialect.js'
import { migrationsTableSql, sqlMigrations, sqlTables } from './schema.js'

/** The kind of a column of Keyward's tables: its type in every dialect (`SqlColumnTypes`). */
export type SqlColumnKind = keyof SqlColumnTypes

/** One column of Keyward's tables. */
export interface SqlColumn {
  readonly name: string
  readonly kind: SqlColumnKind
  readonly notNull: boolean
}

/** One index of Keyward's tables. */
export interface SqlIndex {
  readonly name: string
  readonly columns: readonly string[]
  readonly unique: boolean
}

/** One of Keyward's tables as its migrations leave it. */
export interface SqlTableModel {
  readonly name: string
  readonly columns: readonly SqlColumn[]
  readonly primaryKey: readonly string[]
  readonly indexes: readonly SqlIndex[]
}

const KINDS: readonly SqlColumnKind[] = ['uuid', 'hash', 'key', 'word', 'text', 'bigint', 'flag']

// A dialect whose column types are the kinds' names: its statements say each column's kind.
const kindsDialect: SqlDialect = {
  name: 'kinds',
  forUpdate: '',
  insertIgnore: 'INSERT',
  upsertAdd: () => '',
  jsonText: () => '',
  types: Object.fromEntries(KINDS.map((kind) => [kind, kind])) as unknown as SqlColumnTypes,
  tableOptions: '',
  columnsQuery: '',
  indexesQuery: '',
  isUniqueViolation: () => false,
  isAlreadyThere: () => false,
}

const list = (text: string) => text.split(',').map((name) => name.trim())

/**
 * Keyward's tables under `prefix` at the current schema version, in order of creation (the
 * migrations' table first), each with its columns, its primary key and its indexes.
 *
 * @example
 * ```ts
 * sqlSchemaModel('keyward_')[0].columns[0] // { name: 'id', kind: 'uuid', notNull: true }
 * ```
 */
export function sqlSchemaModel(prefix?: string): SqlTableModel[] {
  const tables = new Map<string, { columns: SqlColumn[]; primaryKey: string[]; indexes: SqlIndex[] }>()
  const names = sqlTables(prefix, 'sqlSchemaModel')
  const column = (definition: string): SqlColumn => {
    const [name, kind] = definition.trim().split(/\s+/) as [string, SqlColumnKind]
    return { name, kind, notNull: /\bNOT NULL\b/.test(definition) }
  }
  const statements = [
    migrationsTableSql(kindsDialect, names),
    ...sqlMigrations(kindsDialect, names).flatMap((migration) => migration.statements),
  ]
  for (const statement of statements) {
    const created = /^CREATE TABLE IF NOT EXISTS (\w+) \(\n([\s\S]*)\n\)$/.exec(statement)
    const added = /^ALTER TABLE (\w+) ADD COLUMN (.+)$/.exec(statement)
    const index = /^CREATE (UNIQUE )?INDEX (?:IF NOT EXISTS )?(\w+) ON (\w+) \((.+)\)$/.exec(statement)
    if (created) {
      const table = { columns: [] as SqlColumn[], primaryKey: [] as string[], indexes: [] as SqlIndex[] }
      for (const line of (created[2] as string).split(',\n')) {
        const key = /^\s*PRIMARY KEY \((.+)\)$/.exec(line)
        if (key) table.primaryKey.push(...list(key[1] as string))
        else {
          table.columns.push(column(line))
          if (/\bPRIMARY KEY\b/.test(line)) table.primaryKey.push(column(line).name)
        }
      }
      tables.set(created[1] as string, table)
    } else if (added) tables.get(added[1] as string)?.columns.push(column(added[2] as string))
    else if (index) {
      tables.get(index[3] as string)?.indexes.push({
        name: index[2] as string,
        columns: list(index[4] as string),
        unique: index[1] !== undefined,
      })
    }
  }
  return [...tables].map(([name, table]) => ({ name, ...table }))
}
