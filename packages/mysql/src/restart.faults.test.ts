// MariaDB stalled (SIGSTOP for 3 s) and restarted (SIGKILL, then started again on the same data
// directory and port) under load, on a server of this file's own. Writers issue keys and revoke
// some through a store with strict revocation; verifiers authenticate keys known to be active and
// keys known to be revoked, most through a second store and service (another process's, with its
// change feed and verification cache), the rest through the writers' service, with a cache too.
// Both stay open throughout. No key is accepted once its revocation was acknowledged, no acknowledged
// write is lost, and the store serves again after each fault without a restart of the process;
// the refusals meanwhile (`store_unavailable`, a 503 over HTTP) and the writes whose outcome is
// unknown are counted and printed. Timing is asserted only as a generous bound on recovery.
import { createKeyward, ErrorType, type Keyward } from '@keyward/core'
import { type SqlKeyStore, SqlOutcomeUnknownError } from '@keyward/sql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MariadbServer, mariadbServerUnavailable } from '../../../scripts/mariadb-server.mjs'
import { sleep, until } from '../../postgres/src/test/until.js'
import { createMysqlKeyStore } from './index.js'

const missing = mariadbServerUnavailable()
const PROJECT = 'faults'
const STALL_MS = 3000
/** How long the store may take to serve again after a fault. */
const RECOVERY_MS = 30_000
/** How long the workload runs before the first fault and after each recovery. */
const STEADY_MS = 2500
const WRITERS = 4
const VERIFIERS = 3

/** What an operation came to: `accepted`, or the type of its refusal (its cause's code with it for a 503). */
function outcome(error: unknown): string {
  const { type, cause } = error as { type?: string; cause?: unknown }
  if (cause instanceof SqlOutcomeUnknownError) return `outcome_unknown (${code(cause.cause)})`
  if (type === ErrorType.storeUnavailable) return `${type} (${code(cause)})`
  return type ?? (error as Error).name ?? String(error)
}

const code = (error: unknown) => {
  const { code, name } = (error ?? {}) as { code?: string; name?: string }
  return code ?? name ?? 'no cause'
}

const bump = (counts: Map<string, number>, name: string) => counts.set(name, (counts.get(name) ?? 0) + 1)
const sum = (counts: Map<string, number>, match: (name: string) => boolean) =>
  [...counts].reduce((total, [name, count]) => total + (match(name) ? count : 0), 0)

describe.skipIf(missing)(
  `MariaDB stalled and restarted under load${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let server: MariadbServer
    const stores: SqlKeyStore[] = []
    /** The writers' service, and the services the verifiers take turns on (another process's first). */
    let keyward: Keyward
    let services: Keyward[]

    /** Keys whose issue was acknowledged and whose revocation has not started: id to key. */
    const active = new Map<string, string>()
    /** Keys whose revocation was acknowledged: id to key. */
    const revoked = new Map<string, string>()
    /** Every key whose issue was acknowledged. */
    const issued: string[] = []
    /** Keys whose revocation failed with a known outcome (nothing committed), and those whose outcome is unknown. */
    const revocationFailed: string[] = []
    const revocationUnknown: string[] = []
    /** What each kind of operation came to. */
    const writes = new Map<string, number>()
    const verifications = new Map<string, number>()
    let wrongAccepts = 0
    let wrongRefusals = 0
    /** When each operation that succeeded started and ended. */
    const served: { kind: 'write' | 'verify'; started: number; ended: number }[] = []
    let running = true

    const pick = <T>(from: Map<string, T>): [string, T] | undefined => {
      const entries = [...from]
      return entries[Math.floor(Math.random() * entries.length)]
    }

    async function writer() {
      for (let round = 0; running; round++) {
        const started = performance.now()
        try {
          const { key, record } = await keyward.issueProjectKey(PROJECT)
          active.set(record.id, key)
          issued.push(record.id)
          bump(writes, 'issued')
          served.push({ kind: 'write', started, ended: performance.now() })
        } catch (error) {
          bump(writes, `issue: ${outcome(error)}`)
        }
        // One key in three is revoked, once verifiers may have cached it.
        const oldest = active.keys().next().value
        if (round % 3 !== 2 || oldest === undefined || active.size < 5) continue
        const key = active.get(oldest) as string
        active.delete(oldest)
        try {
          await keyward.deactivateKey(oldest)
          revoked.set(oldest, key)
          bump(writes, 'revoked')
        } catch (error) {
          const what = outcome(error)
          bump(writes, `revoke: ${what}`)
          ;(what.startsWith('outcome_unknown') ? revocationUnknown : revocationFailed).push(oldest)
        }
      }
    }

    async function verifier(_: unknown, index: number) {
      const service = services[index % services.length] as Keyward
      while (running) {
        const known = Math.random() < 0.5 ? pick(revoked) : pick(active)
        if (!known) {
          await sleep(20)
          continue
        }
        const [id, key] = known
        const wasRevoked = revoked.has(id)
        const started = performance.now()
        const result = await service
          .authenticate({ projectKey: key }, { scope: 'project', projectId: PROJECT })
          .then(() => 'accepted', outcome)
        bump(verifications, result)
        if (result === 'accepted') {
          if (wasRevoked) wrongAccepts++
          else served.push({ kind: 'verify', started, ended: performance.now() })
        } else if (
          !wasRevoked &&
          active.has(id) &&
          (result === ErrorType.keyInvalid || result === ErrorType.keyInactive)
        ) {
          // Active throughout (its revocation had not started when the refusal came): a wrong answer.
          wrongRefusals++
        }
        await sleep(5)
      }
    }

    /** How long after `since` an operation of each kind that started after it succeeded, once both have. */
    async function recovery(since: number) {
      const first = (kind: 'write' | 'verify') =>
        served.find((op) => op.kind === kind && op.started >= since)?.ended
      await until(
        'the store to serve again',
        () => first('write') !== undefined && first('verify') !== undefined,
        RECOVERY_MS,
      )
      return {
        writeMs: Math.round((first('write') as number) - since),
        verifyMs: Math.round((first('verify') as number) - since),
      }
    }

    beforeAll(async () => {
      server = await MariadbServer.start()
      // A statement times out after 2 s: a stalled server is refused (a 503) rather than waited on.
      const open = async (strictRevocation: boolean) => {
        const store = await createMysqlKeyStore(
          { connectionString: server.url },
          { changeFeed: true, strictRevocation, queryTimeoutMs: 2000 },
        )
        stores.push(store)
        return createKeyward({ store, cache: {} })
      }
      keyward = await open(true)
      services = [await open(false), keyward]
    })

    afterAll(async () => {
      running = false
      server?.resume()
      for (const store of stores) await store.close().catch(() => {})
      server?.destroy()
    })

    it('loses no acknowledged write, accepts no revoked key, and serves again after a stall and a restart', async () => {
      const loops = [
        ...Array.from({ length: WRITERS }, writer),
        ...Array.from({ length: VERIFIERS }, verifier),
      ]
      await sleep(STEADY_MS)
      await until('keys revoked and verified', () => revoked.size >= 3 && served.length >= 20)

      // A stall: the server stops where it is; its connections stay open and get no answer.
      server.stall()
      await sleep(STALL_MS)
      server.resume()
      const stalled = await recovery(performance.now())
      await sleep(STEADY_MS)

      // A crash and a restart on the same data directory and port.
      const killed = performance.now()
      await server.kill()
      await server.restart()
      const downMs = Math.round(performance.now() - killed)
      const restarted = await recovery(performance.now())
      await sleep(STEADY_MS)

      running = false
      await Promise.all(loops)

      // Read back through a store of its own: every acknowledged write is there.
      const fresh = await createMysqlKeyStore({ connectionString: server.url }, { migrate: false })
      const lost: string[] = []
      const committedAfterFailure: string[] = []
      let unknownCommitted = 0
      try {
        for (const id of issued) {
          const record = await fresh.findKeyById(id)
          if (!record || (revoked.has(id) && record.active)) lost.push(id)
        }
        // A revocation that failed with a known outcome committed nothing.
        for (const id of revocationFailed)
          if (!(await fresh.findKeyById(id))?.active) committedAfterFailure.push(id)
        for (const id of revocationUnknown) if (!(await fresh.findKeyById(id))?.active) unknownCommitted++
      } finally {
        await fresh.close()
      }

      const operations = sum(writes, () => true) + sum(verifications, () => true)
      const unavailable = (counts: Map<string, number>) =>
        sum(counts, (name) => name.includes(ErrorType.storeUnavailable))
      console.log(
        [
          `operations: ${operations} (writes ${sum(writes, () => true)}, verifications ${sum(verifications, () => true)})`,
          `acknowledged: ${issued.length} issued, ${revoked.size} revoked`,
          `503 store_unavailable: ${unavailable(writes) + unavailable(verifications)} (writes ${unavailable(writes)}, verifications ${unavailable(verifications)})`,
          `outcome unknown: ${revocationUnknown.length + sum(writes, (name) => name.startsWith('issue: outcome_unknown'))} writes (revocations committed: ${unknownCommitted} of ${revocationUnknown.length})`,
          `wrong accepts: ${wrongAccepts}, wrong refusals: ${wrongRefusals}, lost writes: ${lost.length}`,
          `after the ${STALL_MS} ms stall: a write in ${stalled.writeMs} ms, a verification in ${stalled.verifyMs} ms`,
          `after the kill: down ${downMs} ms, then a write in ${restarted.writeMs} ms, a verification in ${restarted.verifyMs} ms`,
          `writes: ${JSON.stringify(Object.fromEntries(writes))}`,
          `verifications: ${JSON.stringify(Object.fromEntries(verifications))}`,
        ].join('\n'),
      )

      expect(wrongAccepts).toBe(0)
      expect(wrongRefusals).toBe(0)
      expect(lost).toEqual([])
      expect(committedAfterFailure).toEqual([])
      // The faults were felt: the workload ran through them, and some requests were refused.
      expect(revoked.size).toBeGreaterThanOrEqual(3)
      expect(unavailable(writes) + unavailable(verifications)).toBeGreaterThan(0)
    }, 180_000)
  },
)
