// Importing keys that another system issued, by their SHA-256: records checked one by one, written
// in batches (each one transaction with its audit rows), idempotent on the hash, resumable.
import type { AuditContext } from '../audit/types.js'
import { isKeywardError, KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import type { ImportHashFormat } from '../import/digest.js'
import { type CheckedImport, checkImportRecord } from '../import/record.js'
import type { KeyRecord } from '../store/types.js'
import { identityOfNewKey } from './identities.js'
import type { Writes } from './types.js'

/**
 * Options of {@link KeywardImport.importKeys}.
 *
 * @example
 * ```ts
 * const options: ImportKeysOptions = { batchSize: 1000, cursor: 42_000, onBatch: (p) => save(p.cursor) }
 * ```
 */
export interface ImportKeysOptions {
  /** How many records make one batch, one transaction: 1 to 10,000, default 500. */
  readonly batchSize?: number
  /**
   * How many records of the source were done already (the `cursor` of an earlier run): they are
   * read and passed over. Default 0.
   */
  readonly cursor?: number
  /** Stop at the first bad record, before writing its batch (batches before it stay written). */
  readonly strict?: boolean
  /** Check every record and count what would be written, writing nothing. */
  readonly dryRun?: boolean
  /** How a record's `hash` is written when it has no `hash_format`; default `sha256-hex`. */
  readonly hashFormat?: ImportHashFormat
  /** Who imports, for the audit rows (default the service's `auditContext`, else the system). */
  readonly audit?: AuditContext
  /** Told after each batch is written (or, in a dry run, checked); awaited before the next. */
  readonly onBatch?: (progress: ImportProgress) => void | Promise<void>
  /** Told of each bad record as it is met. */
  readonly onProblem?: (problem: ImportProblem) => void
}

/**
 * A bad record: its number in the source (the first is 1), the field at fault (`loc`), and the
 * refusal's `msg` and `type`, as the API's errors have them. Never the record's hash.
 */
export interface ImportProblem {
  readonly record: number
  readonly loc: readonly string[]
  readonly msg: string
  readonly type: string
}

/** Where an import stands after a batch. */
export interface ImportProgress {
  /** How many records of the source are done: pass it as `cursor` to resume after them. */
  readonly cursor: number
  /** Records inserted (in a dry run: that would be). */
  readonly written: number
  /** Records whose key is stored already (or repeated in the source), left as they are. */
  readonly present: number
  /** Bad records. */
  readonly invalid: number
}

/** What an import did: its progress at the end, and its first 1,000 bad records. */
export interface ImportReport extends ImportProgress {
  readonly problems: readonly ImportProblem[]
  /** Whether `strict` stopped it at a bad record (`cursor` is then where to resume once it is fixed). */
  readonly stopped: boolean
  readonly dryRun: boolean
}

/** The service's import of keys from other systems. */
export interface KeywardImport {
  /**
   * Imports keys another system issued, by their SHA-256 ({@link ImportRecord} per key), from any
   * iterable: each record is checked (a bad one is reported with its number and field and never
   * stops the others, unless `strict`), and the good ones are written in batches, each batch one
   * transaction with its audit rows (`key.issued`, with `imported: true`). A key whose hash is
   * stored already is left as it is: running the same import again changes nothing. After each
   * batch, `onBatch` gets the `cursor` to resume from. The keys verify when the service accepts
   * their format (option `foreignKeys`). A reader that cannot read a record (a line that is no
   * JSON) may yield a `KeywardError` in its place: it is that record's problem. Needs a store
   * with `insertImportedKeys`.
   *
   * @example
   * ```ts
   * const report = await keyward.importKeys(readRecords(), { batchSize: 1000, onBatch: (p) => save(p.cursor) })
   * report.written // keys inserted; report.problems: [{ record: 7, loc: ['expires_at'], msg, type }]
   * ```
   */
  importKeys(
    records: AsyncIterable<unknown> | Iterable<unknown>,
    options?: ImportKeysOptions,
  ): Promise<ImportReport>
}

const MAX_PROBLEMS = 1000
const MAX_BATCH = 10_000

function checkImportOptions(options: ImportKeysOptions): { batchSize: number; cursor: number } {
  const { batchSize = 500, cursor = 0 } = options
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH) {
    throw new TypeError(`importKeys: option \`batchSize\` must be an integer from 1 to ${MAX_BATCH}.`)
  }
  if (!Number.isInteger(cursor) || cursor < 0) {
    throw new TypeError('importKeys: option `cursor` must be an integer of 0 or more.')
  }
  return { batchSize, cursor }
}

/** @internal The import topic of the service. */
export function importMethods(deps: Writes & { readonly auditContext?: AuditContext }): KeywardImport {
  const { store, storeCall, now, wrote, auditRows, developersOf } = deps

  // The identity of each record that names one, by id or external id (made on first use, as
  // for a new key), found once per import. A dry run makes none: it checks ids only.
  function identities(dryRun: boolean, context: AuditContext | undefined) {
    const found = new Map<string, Promise<string | null>>()
    return (checked: CheckedImport): Promise<string | null> => {
      const { record, externalId } = checked
      const identityId = record.identityId ?? undefined
      if (dryRun && identityId === undefined) return Promise.resolve(null)
      const key = identityId ? `id:${identityId}` : `ext:${record.ownerId}\u0000${externalId}`
      let identity = found.get(key)
      if (!identity) {
        const named = identityId ? { identityId } : { externalId: externalId! }
        identity = identityOfNewKey(deps, 'project', record.ownerId, named, context)
        found.set(key, identity)
      }
      return identity
    }
  }

  return {
    async importKeys(records, options = {}) {
      const { batchSize, cursor: start } = checkImportOptions(options)
      const insert = store.insertImportedKeys?.bind(store)
      if (!insert && !options.dryRun) {
        throw new TypeError('importKeys: the store has no `insertImportedKeys`: it cannot import keys.')
      }
      const dryRun = options.dryRun === true
      const context = options.audit ?? deps.auditContext
      const identityOf = identities(dryRun, context)
      const seen = dryRun ? new Set<string>() : undefined
      const problems: ImportProblem[] = []
      let progress: ImportProgress = { cursor: start, written: 0, present: 0, invalid: 0 }
      let batch: { number: number; checked: CheckedImport }[] = []
      let stopped = false

      // A bad record is a problem of its own; anything else (the store unreachable) stops the import.
      const refuse = (number: number, error: unknown) => {
        if (!isKeywardError(error) || error.status !== 422) throw error
        const problem = { record: number, loc: error.loc, msg: error.msg, type: error.type }
        if (problems.length < MAX_PROBLEMS) problems.push(problem)
        options.onProblem?.(problem)
        progress = { ...progress, invalid: progress.invalid + 1 }
        if (options.strict) stopped = true
      }

      // Resolves the batch's identities, then writes it (or, in a dry run, counts what is new).
      const flush = async (upTo: number) => {
        const ready: KeyRecord[] = []
        for (const { number, checked } of batch) {
          let record = checked.record
          if (record.identityId || checked.externalId) {
            try {
              const identityId = await identityOf(checked)
              if (identityId) record = { ...record, identityId }
            } catch (error) {
              refuse(number, identityRefusal(error, record.identityId ? 'identity_id' : 'external_id'))
              continue
            }
          }
          ready.push(record.active ? record : { ...record, revokedReason: 'revoked' })
        }
        batch = []
        if (stopped) return
        const written = dryRun ? await newOf(ready, seen!) : await write(ready)
        progress = {
          cursor: upTo,
          written: progress.written + written,
          present: progress.present + ready.length - written,
          invalid: progress.invalid,
        }
        await options.onBatch?.(progress)
      }

      const newOf = async (ready: readonly KeyRecord[], seen: Set<string>) => {
        const stored = await storeCall('findKeysByHashes', () =>
          store.findKeysByHashes(ready.map((r) => r.hash)),
        )
        for (const record of stored) seen.add(record.hash)
        let fresh = 0
        for (const record of ready) {
          if (!seen.has(record.hash)) fresh++
          seen.add(record.hash)
        }
        return fresh
      }

      const write = async (ready: readonly KeyRecord[]) => {
        if (ready.length === 0) return 0
        const audit = auditRows.keys(
          'key.issued',
          context,
          await developersOf(ready),
          () => null,
          () => ({ imported: true }),
        )
        const inserted = await storeCall('insertImportedKeys', () => insert!(ready, audit))
        for (const record of inserted) wrote(record.hash)
        return inserted.length
      }

      let number = 0
      for await (const value of records) {
        number++
        if (number <= start) continue
        try {
          batch.push({
            number,
            checked: checkImportRecord(value, { hashFormat: options.hashFormat ?? 'sha256-hex', now: now() }),
          })
        } catch (error) {
          refuse(number, error)
        }
        if (stopped) break
        if (number - progress.cursor >= batchSize) await flush(number)
        if (stopped) break
      }
      if (!stopped && number > progress.cursor) await flush(number)
      return { ...progress, problems, stopped, dryRun }
    },
  }
}

// A record's identity refused: at its field of the record (not of a request body), or a store
// that keeps no identities.
function identityRefusal(error: unknown, field: string): unknown {
  if (isKeywardError(error)) return new KeywardError(error.type, error.msg, error.loc.slice(1))
  if (error instanceof TypeError) {
    return new KeywardError(ErrorType.valueError, 'This store keeps no identities.', [field])
  }
  return error
}
