// Keyward's tables in any dialect: one description, the dialect's column types. Times are
// milliseconds since 1970 (UTC) in 64-bit integers, flags 0 or 1, lists and objects JSON text:
// the same values on every database, whatever its time zone or its JSON support.
import { AUDIT_GENESIS_HASH } from '@keyward/core'
import type { SqlDialect } from './dialect.js'

/** The names of Keyward's tables, under one prefix. */
export interface SqlTables {
  readonly keys: string
  readonly owners: string
  readonly auditLog: string
  readonly auditChain: string
  readonly usage: string
  readonly identities: string
  readonly roles: string
  /** The change log: one row per change a write published, for the change feeds of other processes. */
  readonly changeLog: string
  /** One row, the last id of the change log: its lock orders the writes of the change log. */
  readonly changeCounter: string
  readonly migrations: string
}

const PREFIX = /^[a-z_][a-z0-9_]{0,40}$/

/** The default prefix of Keyward's tables: `keyward_api_keys`, `keyward_api_key_owners`, ... */
export const DEFAULT_TABLE_PREFIX = 'keyward_'

/**
 * The table names under `prefix`, checked once (a lower-case SQL identifier).
 *
 * @example
 * ```ts
 * sqlTables('keyward_').keys // 'keyward_api_keys'
 * ```
 */
export function sqlTables(prefix: string = DEFAULT_TABLE_PREFIX, who = 'SqlKeyStore'): SqlTables {
  if (typeof prefix !== 'string' || !PREFIX.test(prefix)) {
    throw new TypeError(
      `${who}: option \`tablePrefix\` must be a lower-case SQL identifier start (a-z, 0-9, _; at most 41), got ${JSON.stringify(prefix)}.`,
    )
  }
  return {
    keys: `${prefix}api_keys`,
    owners: `${prefix}api_key_owners`,
    auditLog: `${prefix}audit_log`,
    auditChain: `${prefix}audit_chain`,
    usage: `${prefix}key_usage`,
    identities: `${prefix}identities`,
    roles: `${prefix}roles`,
    changeLog: `${prefix}change_log`,
    changeCounter: `${prefix}change_counter`,
    migrations: `${prefix}migrations`,
  }
}

/** One migration: its version and its statements, each run on its own. */
export interface SqlMigration {
  readonly version: number
  readonly statements: readonly string[]
}

/**
 * Keyward's schema in `dialect`, as migrations (version 1: keys, owners, identities, the audit
 * log and usage counts; version 2: `api_keys.pepper_id`, the pepper of a key's hash; version 3:
 * the table `roles` and `api_keys.role_ids`; version 4: the change log and its counter; version
 * 5: `identities.role_ids`; version 6: `credits_low_at` of `api_keys` and `identities`). No foreign keys: hosted MySQL services refuse them, and the store
 * keeps the rules itself.
 *
 * @example
 * ```ts
 * for (const { statements } of sqlMigrations(sqliteDialect)) for (const s of statements) db.exec(s)
 * ```
 */
export function sqlMigrations(dialect: SqlDialect, tables: SqlTables = sqlTables()): SqlMigration[] {
  const { uuid, hash, key, word, text, bigint, flag } = dialect.types
  const table = (name: string, columns: string) =>
    `CREATE TABLE IF NOT EXISTS ${name} (\n  ${columns.trim().split('\n').join('\n  ')}\n)${dialect.tableOptions}`
  const index = (name: string, on: string, unique = false) =>
    dialect.name === 'mysql'
      ? `CREATE ${unique ? 'UNIQUE ' : ''}INDEX ${name} ON ${on}`
      : `CREATE ${unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${name} ON ${on}`
  return [
    {
      version: 1,
      statements: [
        table(
          tables.keys,
          `id ${uuid} NOT NULL PRIMARY KEY,
hash ${hash} NOT NULL,
key_prefix ${key} NOT NULL,
developer_id ${key},
project_id ${key},
name ${text},
active ${flag} NOT NULL,
created_at ${bigint} NOT NULL,
expires_at ${bigint},
last_used_at ${bigint},
replaced_by ${uuid},
revoked_reason ${word},
ip_allowlist ${text},
permissions ${text},
metadata ${text},
remaining ${bigint},
refill_amount ${bigint},
refill_interval ${word},
refill_day ${flag},
refilled_at ${bigint},
ratelimits ${text},
identity_id ${uuid}`,
        ),
        index(`${tables.keys}_hash_key`, `${tables.keys} (hash)`, true),
        index(`${tables.keys}_developer_idx`, `${tables.keys} (developer_id, created_at, id)`),
        index(`${tables.keys}_project_idx`, `${tables.keys} (project_id, created_at, id)`),
        index(`${tables.keys}_identity_idx`, `${tables.keys} (identity_id, created_at, id)`),
        table(
          tables.identities,
          `id ${uuid} NOT NULL PRIMARY KEY,
project_id ${key} NOT NULL,
external_id ${key} NOT NULL,
metadata ${text},
ratelimits ${text},
remaining ${bigint},
refill_amount ${bigint},
refill_interval ${word},
refill_day ${flag},
refilled_at ${bigint},
created_at ${bigint} NOT NULL,
updated_at ${bigint} NOT NULL`,
        ),
        index(`${tables.identities}_external_key`, `${tables.identities} (project_id, external_id)`, true),
        index(`${tables.identities}_project_idx`, `${tables.identities} (project_id, created_at, id)`),
        table(
          tables.owners,
          `owner_type ${key} NOT NULL,
owner_id ${key} NOT NULL,
closed_at ${bigint},
PRIMARY KEY (owner_type, owner_id)`,
        ),
        table(
          tables.auditLog,
          `seq ${bigint} NOT NULL PRIMARY KEY,
at ${bigint} NOT NULL,
action ${word} NOT NULL,
developer_id ${key},
project_id ${key},
target_type ${word} NOT NULL,
target_id ${key} NOT NULL,
row_json ${text} NOT NULL`,
        ),
        index(`${tables.auditLog}_developer_idx`, `${tables.auditLog} (developer_id, seq)`),
        table(
          tables.auditChain,
          `id ${flag} NOT NULL PRIMARY KEY,
seq ${bigint} NOT NULL,
hash ${hash} NOT NULL,
start_seq ${bigint} NOT NULL,
start_hash ${hash} NOT NULL`,
        ),
        `${dialect.insertIgnore} INTO ${tables.auditChain} (id, seq, hash, start_seq, start_hash) VALUES (1, 0, '${AUDIT_GENESIS_HASH}', 0, '${AUDIT_GENESIS_HASH}')`,
        table(
          tables.usage,
          `granularity ${word} NOT NULL,
bucket ${bigint} NOT NULL,
key_id ${uuid} NOT NULL,
owner_type ${word} NOT NULL,
owner_id ${key} NOT NULL,
route ${key} NOT NULL,
address ${key} NOT NULL,
outcome ${word} NOT NULL,
count ${bigint} NOT NULL,
PRIMARY KEY (granularity, bucket, key_id, route, address, outcome)`,
        ),
        index(`${tables.usage}_owner_idx`, `${tables.usage} (owner_type, owner_id, granularity, bucket)`),
      ],
    },
    {
      // With the service's option `hashing.pepper`, the id of the pepper a key's hash is an HMAC
      // under (never its secret); NULL for a plain SHA-256.
      version: 2,
      statements: [`ALTER TABLE ${tables.keys} ADD COLUMN pepper_id ${key}`],
    },
    {
      // A project's roles (a name unique in the project, permissions as a JSON list), and the ids
      // of the roles a key holds, a JSON list (NULL: none). The keys that hold a role are read
      // among its project's keys, on the index of `project_id`.
      version: 3,
      statements: [
        table(
          tables.roles,
          `id ${uuid} NOT NULL PRIMARY KEY,
project_id ${key} NOT NULL,
name ${key} NOT NULL,
permissions ${text},
created_at ${bigint} NOT NULL,
updated_at ${bigint} NOT NULL`,
        ),
        index(`${tables.roles}_name_key`, `${tables.roles} (project_id, name)`, true),
        index(`${tables.roles}_project_idx`, `${tables.roles} (project_id, created_at, id)`),
        `ALTER TABLE ${tables.keys} ADD COLUMN role_ids ${text}`,
      ],
    },
    {
      // The change log: what each write published (a key's hash and id, or a closed owner's
      // `owner:...`), under ids a one-row counter hands out inside the writing transaction. The
      // counter's row lock orders the writers: the ids are dense and in commit order.
      version: 4,
      statements: [
        table(
          tables.changeLog,
          `id ${bigint} NOT NULL PRIMARY KEY,
at ${bigint} NOT NULL,
hash ${text} NOT NULL,
key_id ${uuid}`,
        ),
        table(
          tables.changeCounter,
          `id ${flag} NOT NULL PRIMARY KEY,
seq ${bigint} NOT NULL`,
        ),
        `${dialect.insertIgnore} INTO ${tables.changeCounter} (id, seq) VALUES (1, 0)`,
      ],
    },
    {
      // The ids of the roles an identity holds, a JSON list (NULL: none): every key of it may do
      // what they allow. The identities that hold a role are read among its project's identities.
      version: 5,
      statements: [`ALTER TABLE ${tables.identities} ADD COLUMN role_ids ${text}`],
    },
    {
      // The low-credits threshold of a key and of an identity's pool, JSON text (NULL: none):
      // `{"remaining": N}` or `{"percent": P}`, checked by the key service before it writes it.
      version: 6,
      statements: [
        `ALTER TABLE ${tables.keys} ADD COLUMN credits_low_at ${text}`,
        `ALTER TABLE ${tables.identities} ADD COLUMN credits_low_at ${text}`,
      ],
    },
  ]
}

/**
 * The statement that creates the table of applied versions (`migrations`), which `migrateSql`
 * runs before the migrations.
 *
 * @example
 * ```ts
 * await db.run(migrationsTableSql(sqliteDialect, sqlTables()))
 * ```
 */
export function migrationsTableSql(dialect: SqlDialect, tables: SqlTables): string {
  const { bigint } = dialect.types
  return `CREATE TABLE IF NOT EXISTS ${tables.migrations} (\n  version ${bigint} NOT NULL PRIMARY KEY,\n  applied_at ${bigint} NOT NULL\n)${dialect.tableOptions}`
}

/**
 * The schema as one SQL text a person can read and apply: every migration's statements, each
 * ending with a semicolon.
 *
 * @example
 * ```ts
 * writeFileSync('keyward.sql', schemaSql(mysqlDialect))
 * ```
 */
export function schemaSql(dialect: SqlDialect, tables: SqlTables = sqlTables()): string {
  return `${sqlMigrations(dialect, tables)
    .flatMap((migration) => migration.statements)
    .join(';\n\n')};\n`
}
