import { type AuditVerification, verifyAuditChain } from '../audit/chain.js'
import { type AuditFilter, auditFilterOf } from '../audit/filter.js'
import type { AuditContext, AuditEvent, AuditPage, AuditRecord } from '../audit/types.js'
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../store/page.js'
import type { KeyStore } from '../store/types.js'
import type { AuditRows } from './audit-rows.js'
import type { DevelopersOf, StoreCall } from './types.js'

/** @internal The audit log's part of the key service's interface (`Keyward`). */
export interface KeywardAudit {
  /**
   * Whether the store keeps an audit log (it has `appendAudit`). Then every write of this
   * service appends its rows in the same transaction: who (`context.actor`; the system when no
   * context is given), from where, when, and the changed fields before and after.
   */
  readonly auditing: boolean
  /**
   * Appends a row for a change the host makes (a project created or deleted, a console
   * sign-in). Inside a transaction of the host's store (a service over `tx.store`) it commits
   * with the host's change. `null` when the store keeps no audit log.
   *
   * @example
   * ```ts
   * await keywardIn(tx).recordAudit(
   *   { action: 'project.created', targetType: 'project', targetId: id, developerId, projectId: id, after: { name } },
   *   context,
   * )
   * ```
   */
  recordAudit(event: AuditEvent, context?: AuditContext): Promise<AuditRecord | null>
  /**
   * One page of a developer's audit rows (of one project with `projectId`), newest first.
   * Throws a `TypeError` when the store keeps no audit log.
   *
   * @example
   * ```ts
   * let page = await keyward.listAudit('dev_1', { limit: 50 })
   * while (page.next) page = await keyward.listAudit('dev_1', { limit: 50, beforeSeq: page.next })
   * ```
   */
  listAudit(developerId: string, options?: ListAuditOptions): Promise<AuditPage>
  /**
   * Checks the whole audit log against its chain: every row's hash, every link, no row missing
   * up to the chain's head. Throws a `TypeError` when the store keeps no audit log.
   *
   * @example
   * ```ts
   * const { ok, problem } = await keyward.verifyAudit()
   * if (!ok) alert(problem?.message)
   * ```
   */
  verifyAudit(): Promise<AuditVerification>
}

/** Options of `keyward.listAudit`. */
export interface ListAuditOptions {
  /** Only the rows of this project (check first that the developer owns it). */
  readonly projectId?: string
  /** How many rows at most, 1 to 200. Default 100. */
  readonly limit?: number
  /** Rows before this `seq` (the `next` of the previous page); absent for the first page. */
  readonly beforeSeq?: number | null
  /** Only the rows about this key, of this action, at or after `from`, before `to`. */
  readonly filter?: AuditFilter
}

/** @internal What the service's audit methods need of it. */
export interface AuditDependencies {
  readonly store: KeyStore
  readonly rows: AuditRows
  readonly storeCall: StoreCall
}

// How many rows `verifyAudit` reads at a time.
const VERIFY_PAGE = 1000

/** @internal The service's audit methods: `auditing`, `recordAudit`, `listAudit` and `verifyAudit`. */
export function auditMethods({ store, rows, storeCall }: AuditDependencies): KeywardAudit {
  const needs = (method: string) => {
    throw new TypeError(`This key store keeps no audit log (no \`${method}\`).`)
  }
  return {
    auditing: rows.on,
    async recordAudit(event: AuditEvent, context?: AuditContext): Promise<AuditRecord | null> {
      if (!store.appendAudit) return null
      const [record] = await storeCall('appendAudit', () => store.appendAudit!([rows.event(event, context)]))
      return record ?? null
    },
    async listAudit(developerId: string, options: ListAuditOptions = {}): Promise<AuditPage> {
      if (!store.listAudit) return needs('listAudit')
      const limit = options.limit ?? DEFAULT_PAGE_LIMIT
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
        throw new TypeError(`listAudit: option \`limit\` must be an integer from 1 to ${MAX_PAGE_LIMIT}.`)
      }
      const beforeSeq = options.beforeSeq ?? undefined
      const query = {
        developerId,
        limit,
        ...(options.projectId === undefined ? {} : { projectId: options.projectId }),
        ...(beforeSeq === undefined ? {} : { beforeSeq }),
        ...auditFilterOf(options.filter ?? {}),
      }
      return storeCall('listAudit', () => store.listAudit!(query))
    },
    async verifyAudit(): Promise<AuditVerification> {
      if (!store.readAuditLog || !store.auditChainHead) return needs('readAuditLog')
      // The head first: rows appended while the log is read come after it and are not checked.
      const head = await storeCall('auditChainHead', () => store.auditChainHead!())
      const read = store.readAuditLog.bind(store)
      async function* all() {
        let after = head.startSeq
        for (;;) {
          const page = await storeCall('readAuditLog', () => read(after, VERIFY_PAGE))
          for (const row of page) {
            if (row.seq > head.seq) return
            yield row
          }
          if (page.length < VERIFY_PAGE) return
          after = page.at(-1)!.seq
        }
      }
      return verifyAuditChain(all(), head)
    },
  }
}

/**
 * @internal The service's `developersOf`: the developer whose audit log holds the rows of these
 * owners' keys, a developer or the owner of a project (through `projectOwner`; `null` without
 * it). Projects' owners are looked up only when the store audits.
 */
export function developerLookup(
  rows: AuditRows,
  projectOwner: ((projectId: string) => Promise<string | null>) | undefined,
): DevelopersOf {
  return async (owners) => {
    const found = new Map<string, string | null>()
    if (rows.on && projectOwner) {
      for (const { ownerType, ownerId } of owners) {
        if (ownerType === 'project' && !found.has(ownerId)) found.set(ownerId, await projectOwner(ownerId))
      }
    }
    return (record) =>
      record.ownerType === 'developer' ? record.ownerId : (found.get(record.ownerId) ?? null)
  }
}
