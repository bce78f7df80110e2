import { type KeywardTelemetry, traceStoreCalls } from '@keyward/core'

/**
 * The spans of a PostgreSQL store's calls (option `telemetry`), after OpenTelemetry's PostgreSQL
 * conventions: `db.system.name` `postgresql`, `db.namespace` the schema (the database's name is
 * not known without asking it), `db.operation.name` the store's method, and `db.collection.name`
 * the table it works on. No argument and no row: a lookup's hash stays out of the trace.
 */
export function traceStore<S extends object>(
  store: S,
  schema: string,
  telemetry: KeywardTelemetry | undefined,
): S {
  const keys = `${schema}.api_keys`
  const usage = `${schema}.key_usage`
  const audit = `${schema}.audit_log`
  return traceStoreCalls(store, telemetry, {
    scope: '@keyward/postgres',
    system: 'postgresql',
    namespace: schema,
    operations: {
      findKeyByHash: keys,
      findKeyById: keys,
      findKeysByHashes: keys,
      insertKey: keys,
      insertImportedKeys: keys,
      listKeysByOwner: keys,
      listKeysPage: keys,
      listOwners: keys,
      setKeyActive: keys,
      setKeyExpiry: keys,
      setKeyPolicies: keys,
      rollKey: keys,
      deactivateKeys: keys,
      deactivateOwnerKeys: keys,
      recordKeyUse: keys,
      leaseCredits: keys,
      leaseCreditsMany: keys,
      returnCredits: keys,
      changeCredits: keys,
      recordUsage: usage,
      readUsage: usage,
      compactUsage: usage,
      appendAudit: audit,
      listAudit: audit,
      readAuditLog: audit,
      auditChainHead: audit,
    },
  })
}
