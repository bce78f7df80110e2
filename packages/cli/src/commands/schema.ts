import { ErrorType } from '@keyward/core'
import { checkSchemaDrift, MIGRATIONS, migrationSql } from '@keyward/postgres'
import {
  checkSqlSchema,
  migrationsTableSql,
  mysqlDialect,
  sqliteDialect,
  sqlMigrations,
  sqlTables,
} from '@keyward/sql'
import { type Command, stringOption } from '../command.js'
import { CliError, EXIT, usageError } from '../exit.js'
import { plural } from '../output.js'
import { resolveStoreLocation, STORE_ENV } from '../store.js'
import { drizzleSource, prismaSource, type SqlDialectName } from './schema-source.js'

// Building the scratch schema takes a few dozen statements: more time than one store operation.
const DOCTOR_TIMEOUT_SECONDS = 30

/** The schema name of `--pg-schema`, else of the environment, else `keyward`; checked as the store checks it. */
function schemaOption(value: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  const schema = value ?? (env[STORE_ENV.pgSchema] || 'keyward')
  try {
    migrationSql(schema)
  } catch (error) {
    // "migrationSql: option `schema` must be ..., got ...": the rule is the store's.
    if (error instanceof TypeError)
      throw usageError(`--pg-schema ${error.message.replace(/^.*? must /, 'must ')}`)
    throw error
  }
  return schema
}

/** `keyward schema sql`: the versioned SQL migrations, for the application's own migration tool. */
export const schemaSqlCommand: Command = {
  name: 'schema sql',
  summary: "Print Keyward's SQL migrations, version by version (offline)",
  description:
    "Prints the SQL that builds Keyward's tables, version by version, for the schema --pg-schema names: " +
    'the very statements migrate() runs, each idempotent, each version ending by recording itself in ' +
    'keyward_migrations (so that migrate() later finds it applied). Put them in migrations of your own ' +
    '(one file per version), or apply them with psql --single-transaction -f. With --from N, only the ' +
    'versions after N. With --json, a list of {version, name, sql}. It connects to nothing. With ' +
    '--dialect mysql or sqlite, the schema of @keyward/mysql or @keyward/sqlite instead (tables named ' +
    '--table-prefix, default keyward_), the very statements their migrate runs.',
  arguments: [],
  options: [
    {
      flags: '--pg-schema <name>',
      help: `the SQL schema of Keyward's tables (default: $${STORE_ENV.pgSchema}, else keyward)`,
    },
    { flags: '--from <version>', help: 'print only the versions after this one (default 0: all)' },
    { flags: '--dialect <name>', help: 'postgres (default), mysql (MySQL 8, MariaDB 10.11) or sqlite' },
    {
      flags: '--table-prefix <prefix>',
      help: 'with --dialect mysql or sqlite: what table names start with (default keyward_)',
    },
  ],
  store: false,
  exitCodes: '0 printed, 2 usage error',
  async run(context) {
    const dialect = stringOption(context, 'dialect') ?? 'postgres'
    if (dialect !== 'postgres') return printSqlDialect(context, dialect)
    const schema = schemaOption(stringOption(context, 'pg-schema'), context.io.env)
    const fromText = stringOption(context, 'from') ?? '0'
    const latest = MIGRATIONS.at(-1)?.version ?? 0
    const from = Number(fromText)
    if (!/^\d+$/.test(fromText) || from > latest) {
      throw usageError(
        `--from must be a schema version from 0 to ${latest}, got ${JSON.stringify(fromText)}.`,
      )
    }
    const versions = migrationSql(schema).filter((m) => m.version > from)
    const text = versions
      .map((m) => `-- Keyward schema version ${m.version} (${m.name}), in the schema ${schema}\n\n${m.sql}`)
      .join('\n')
    context.print(text === '' ? `-- Nothing after version ${latest}, the newest.` : text.trimEnd(), versions)
    return EXIT.ok
  },
}

const SQL_DIALECTS = { mysql: mysqlDialect, sqlite: sqliteDialect } as const

/** `--dialect` (mysql or sqlite) and `--table-prefix`, checked. */
function sqlDialectOptions(context: Parameters<Command['run']>[0], name: string) {
  const dialect = SQL_DIALECTS[name as keyof typeof SQL_DIALECTS]
  if (!dialect) throw usageError(`--dialect must be postgres, mysql or sqlite, got ${JSON.stringify(name)}.`)
  const prefix = stringOption(context, 'table-prefix') ?? 'keyward_'
  try {
    return { name: name as SqlDialectName, dialect, prefix, tables: sqlTables(prefix, 'keyward schema') }
  } catch (error) {
    throw usageError(`--table-prefix ${(error as Error).message.replace(/^.*? must /, 'must ')}`)
  }
}

/** Now in milliseconds since 1970, as SQL of each dialect: when a version was applied. */
const NOW_MS = { mysql: 'UNIX_TIMESTAMP() * 1000', sqlite: "CAST(strftime('%s', 'now') AS INTEGER) * 1000" }

// `keyward schema sql --dialect mysql|sqlite`: the migrations of the shared SQL layer, each version
// recording itself in the migrations table as `migrateSql` does (so that it, and `doctor`, find it
// applied).
function printSqlDialect(context: Parameters<Command['run']>[0], name: string) {
  const { dialect, tables, name: dialectName } = sqlDialectOptions(context, name)
  const record = (version: number) =>
    `${dialect.insertIgnore} INTO ${tables.migrations} (version, applied_at) VALUES (${version}, ${NOW_MS[dialectName]})`
  const versions = sqlMigrations(dialect, tables).map((m, i) => ({
    version: m.version,
    name: 'tables',
    sql: `${[...(i === 0 ? [migrationsTableSql(dialect, tables)] : []), ...m.statements, record(m.version)].join(';\n\n')};\n`,
  }))
  const text = versions.map((m) => `-- Keyward ${name} schema version ${m.version}\n\n${m.sql}`).join('\n')
  context.print(text.trimEnd(), versions)
  return EXIT.ok
}

const SOURCE_OPTIONS = [
  { flags: '--dialect <name>', help: 'mysql (MySQL 8, MariaDB 10.11) or sqlite' },
  { flags: '--table-prefix <prefix>', help: 'what table names start with (default keyward_)' },
]

/** A command that prints Keyward's tables of @keyward/mysql or @keyward/sqlite as source for another tool. */
function sourceCommand(
  tool: 'drizzle' | 'prisma',
  summary: string,
  description: string,
  forPostgres: string,
  print: (dialect: SqlDialectName, prefix: string) => string,
): Command {
  return {
    name: `schema ${tool}`,
    summary,
    description,
    arguments: [],
    options: SOURCE_OPTIONS,
    store: false,
    exitCodes: '0 printed, 2 usage error',
    async run(context) {
      const given = stringOption(context, 'dialect')
      if (given === undefined || given === 'postgres') {
        throw usageError(
          `keyward schema ${tool} needs --dialect mysql or sqlite; for PostgreSQL, ${forPostgres}.`,
        )
      }
      const { name, prefix } = sqlDialectOptions(context, given)
      const text = print(name, prefix)
      context.print(text.trimEnd(), { dialect: name, tablePrefix: prefix, source: text })
      return EXIT.ok
    },
  }
}

/** `keyward schema drizzle`: Keyward's tables as Drizzle tables (mysqlTable, sqliteTable). */
export const schemaDrizzleCommand = sourceCommand(
  'drizzle',
  "Print Keyward's MySQL or SQLite tables as a Drizzle schema module (offline)",
  'Prints a TypeScript module of Drizzle tables (mysqlTable with --dialect mysql, sqliteTable with --dialect ' +
    "sqlite) for Keyward's tables under --table-prefix (default keyward_): each column, primary key and index " +
    "the migrations create, for queries and joins of your own. Keyward's migrations create the tables: keep " +
    'drizzle-kit off them. It connects to nothing.',
  'import the tables from @keyward/postgres/drizzle',
  drizzleSource,
)

/** `keyward schema prisma`: Keyward's tables as Prisma models. */
export const schemaPrismaCommand = sourceCommand(
  'prisma',
  "Print Keyward's MySQL or SQLite tables as Prisma models (offline)",
  "Prints Prisma models of Keyward's tables under --table-prefix (default keyward_), for a schema whose " +
    'datasource has provider = "mysql" (--dialect mysql) or "sqlite" (--dialect sqlite): each field mapped ' +
    "(@map, @@map) to its column and table, the primary keys and indexes the migrations create. Keyward's " +
    'migrations create the tables, not Prisma Migrate. It connects to nothing.',
  'the models ship in @keyward/postgres/prisma/keyward.prisma',
  prismaSource,
)

/** `keyward doctor`: the live schema against what the migrations create. */
export const doctorCommand: Command = {
  name: 'doctor',
  summary: "Compare Keyward's schema in PostgreSQL with what its migrations create",
  description:
    "Reads Keyward's schema in the PostgreSQL database (--pg-url, --pg-schema) and compares it with what " +
    "this version's migrations create: tables, columns (type, NOT NULL, default), constraints, indexes (and " +
    'one that a failed CREATE INDEX CONCURRENTLY left invalid; a trigram index of version 12 once pg_trgm is ' +
    'installed), the ' +
    'change feed triggers and functions (on api_keys and identities), and the version recorded in ' +
    'keyward_migrations. It builds the ' +
    'expected schema with the migrations in a scratch schema, under a savepoint it rolls back (it needs the ' +
    'right to create a schema), and changes nothing. Prints each drift on its own line; exits 1 on any. ' +
    'With --mysql-url (MySQL 8, MariaDB 10.11) or --sqlite (a file), it reads the tables of @keyward/mysql or ' +
    '@keyward/sqlite instead (named --table-prefix, default keyward_): each column (type, NOT NULL, primary ' +
    'key), each index, and the version recorded, against what the migrations create.',
  arguments: [],
  options: [
    { flags: '--mysql-url <url>', help: 'check the tables of @keyward/mysql in this database (mysql://...)' },
    { flags: '--sqlite <path>', help: 'check the tables of @keyward/sqlite in this file (opened read-only)' },
    {
      flags: '--table-prefix <prefix>',
      help: 'with --mysql-url or --sqlite: what table names start with (default keyward_)',
    },
  ],
  store: true,
  storeTimeoutSeconds: DOCTOR_TIMEOUT_SECONDS,
  exitCodes: '0 no drift, 1 drift found, 2 usage error, 3 database unavailable',
  async run(context) {
    const mysqlUrl = stringOption(context, 'mysql-url')
    const sqlitePath = stringOption(context, 'sqlite')
    if (mysqlUrl !== undefined || sqlitePath !== undefined) return sqlDoctor(context, mysqlUrl, sqlitePath)
    const location = resolveStoreLocation(
      context.values as { 'data-dir'?: string; 'pg-url'?: string; 'pg-schema'?: string; timeout?: string },
      context.io.env,
      DOCTOR_TIMEOUT_SECONDS,
    )
    if (!('pgUrl' in location)) {
      throw usageError(
        'keyward doctor checks a PostgreSQL schema: give --pg-url URL (or set KEYWARD_PG_URL).',
      )
    }
    const schema = schemaOption(location.schema, context.io.env)
    const [{ default: pg }, { pgDriver }] = await Promise.all([import('pg'), import('@keyward/postgres/pg')])
    const client = new pg.Client({ connectionString: location.pgUrl, connectionTimeoutMillis: 5000 })
    client.on('error', () => {})
    try {
      await client.connect().catch((error: Error) => {
        throw new CliError(
          ErrorType.storeUnavailable,
          `The database is unavailable: ${error.message}`,
          EXIT.storeUnavailable,
        )
      })
      const report = await checkSchemaDrift(
        pgDriver(client, { queryTimeoutMs: location.queryTimeoutMs, preparedStatements: false }),
        {
          schema,
        },
      )
      const version = report.version === null ? 'no version' : `version ${report.version}`
      const text =
        report.drift.length === 0
          ? `Schema ${schema} (${version}) is what the migrations of version ${report.expectedVersion} create: no drift.`
          : [
              `Schema ${schema} (${version}; expected ${report.expectedVersion}): ${plural(report.drift.length, 'drift')}.`,
              ...report.drift.map((drift) => `  ${drift.message}`),
            ].join('\n')
      context.print(text, report)
      return report.drift.length === 0 ? EXIT.ok : EXIT.failed
    } finally {
      await client.end().catch(() => {})
    }
  },
}

/** `keyward doctor --mysql-url URL` or `--sqlite PATH`: the tables of the shared SQL layer. */
async function sqlDoctor(
  context: Parameters<Command['run']>[0],
  mysqlUrl: string | undefined,
  sqlitePath: string | undefined,
) {
  if (mysqlUrl !== undefined && sqlitePath !== undefined)
    throw usageError('Give either --mysql-url or --sqlite, not both.')
  if (mysqlUrl !== undefined && !/^(mysql|mariadb):\/\//.test(mysqlUrl)) {
    throw usageError(`--mysql-url must start with mysql:// or mariadb://, got ${JSON.stringify(mysqlUrl)}.`)
  }
  const tablePrefix = stringOption(context, 'table-prefix') ?? 'keyward_'
  try {
    sqlTables(tablePrefix, 'keyward doctor')
  } catch (error) {
    throw usageError(`--table-prefix ${(error as Error).message.replace(/^.*? must /, 'must ')}`)
  }
  const unavailable = (error: unknown) =>
    new CliError(
      ErrorType.storeUnavailable,
      `The database is unavailable: ${(error as Error).message}`,
      EXIT.storeUnavailable,
    )
  const opened = await (mysqlUrl !== undefined
    ? openMysql(mysqlUrl)
    : openSqliteFile(sqlitePath as string)
  ).catch((error: unknown) => {
    throw unavailable(error)
  })
  try {
    const report = await checkSqlSchema(opened.db, opened.dialect, { tablePrefix }).catch(
      (error: unknown) => {
        throw unavailable(error)
      },
    )
    const version = report.version === null ? 'no version' : `version ${report.version}`
    const text =
      report.drift.length === 0
        ? `Tables ${tablePrefix}* (${version}) are what the migrations of version ${report.expectedVersion} create: no drift.`
        : [
            `Tables ${tablePrefix}* (${version}; expected ${report.expectedVersion}): ${plural(report.drift.length, 'drift')}.`,
            ...report.drift.map((drift) => `  ${drift.message}`),
          ].join('\n')
    context.print(text, report)
    return report.drift.length === 0 ? EXIT.ok : EXIT.failed
  } finally {
    await opened.db.close?.()
  }
}

async function openMysql(url: string) {
  const [{ default: mysql }, { mysqlDatabase }] = await Promise.all([
    import('mysql2/promise'),
    import('@keyward/mysql'),
  ])
  const pool = mysql.createPool({
    uri: url.replace(/^mariadb:/, 'mysql:'),
    connectionLimit: 1,
    connectTimeout: 5000,
  })
  const db = mysqlDatabase(pool, { ownsPool: true })
  await db.query('SELECT 1').catch(async (error: unknown) => {
    await db.close?.()
    throw error
  })
  return { db, dialect: mysqlDialect }
}

async function openSqliteFile(path: string) {
  const [{ default: Database }, { sqliteDatabase }] = await Promise.all([
    import('better-sqlite3'),
    import('@keyward/sqlite'),
  ])
  // Read-only, and only a file that exists: the check creates nothing.
  return {
    db: sqliteDatabase(new Database(path, { readonly: true, fileMustExist: true })),
    dialect: sqliteDialect,
  }
}
