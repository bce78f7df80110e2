// Usage counts are exact under load: 8 processes send 200,000 verifications across 1,000 keys of
// 10 projects, with a known mix of outcomes (accepted, inactive, expired, wrong project, unknown,
// malformed), flushing every second to one PostgreSQL schema (so they add to the same rows at
// once), then stop cleanly on SIGTERM. The stored counts equal the sent counts, exactly.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createKeyward } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import { createPgKeyStore } from './pg.js'
import { uniqueSchema } from './test/harness.js'

const PG_URL = process.env.KEYWARD_PG_URL
const WORKER = fileURLToPath(new URL('./test/usage-worker.mjs', import.meta.url))
const PROCESSES = 8
const PER_PROCESS = 25_000
const KEYS = 1000
const PROJECTS = 10

type Mode = 'ok' | 'wrong' | 'unknown' | 'malformed'

// The mix, by step: 70% with the key's own project, 15% another project, 10% an unknown key, 5% malformed.
function modeOf(step: number): Mode {
  const slot = step % 20
  return slot < 14 ? 'ok' : slot < 17 ? 'wrong' : slot < 19 ? 'unknown' : 'malformed'
}

describe.skipIf(!PG_URL)('usage counts under load (set KEYWARD_PG_URL to run)', () => {
  it(`stores exactly what ${PROCESSES} processes counted of ${PROCESSES * PER_PROCESS} verifications, after a clean stop`, async () => {
    const schema = uniqueSchema()
    const store = await createPgKeyStore({ connectionString: PG_URL! }, { schema, queryTimeoutMs: 30_000 })
    const dir = await mkdtemp(join(tmpdir(), 'keyward-usage-load-'))
    const children: ChildProcess[] = []
    try {
      const keyward = createKeyward({ store, usage: false })
      // 1,000 keys: the first 50 inactive, the next 50 expired, the rest active.
      const keys: { id: string; key: string; projectId: string; state: 'active' | 'inactive' | 'expired' }[] =
        []
      for (let i = 0; i < KEYS; i++) {
        const projectId = `project-${i % PROJECTS}`
        const { key, record } = await keyward.issueProjectKey(projectId)
        const state = i < 50 ? 'inactive' : i < 100 ? 'expired' : 'active'
        if (state === 'inactive') await keyward.deactivateKey(record.id)
        if (state === 'expired') await store.setKeyExpiry(record.id, new Date(Date.now() - 60_000))
        keys.push({ id: record.id, key, projectId, state })
      }
      const steps = Array.from({ length: PROCESSES }, (_, w) =>
        Array.from({ length: PER_PROCESS }, (_, i) => [(i * 7919 + w * 131) % KEYS, modeOf(i + w)] as const),
      )
      // What each verification must be counted as.
      const expected = new Map<string, number>()
      const add = (name: string) => expected.set(name, (expected.get(name) ?? 0) + 1)
      for (const [k, mode] of steps.flat()) {
        const key = keys[k]!
        if (mode === 'unknown' || mode === 'malformed') add(` ${mode}`)
        else if (key.state !== 'active') add(`${key.id} ${key.state}`)
        else add(`${key.id} ${mode === 'ok' ? 'accepted' : 'wrong_project'}`)
      }
      const planFile = join(dir, 'plan.json')
      const unknownKey = `ak_${'U'.repeat(32)}`
      await writeFile(planFile, JSON.stringify({ url: PG_URL, schema, keys, steps, unknownKey }))

      const done = Array.from({ length: PROCESSES }, (_, w) => {
        const child = spawn(process.execPath, [WORKER, planFile, String(w)], {
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        children.push(child)
        let output = ''
        child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
          output += chunk
        })
        return new Promise<void>((resolve, reject) => {
          child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
            output += chunk
            if (output.includes('done\n')) resolve()
          })
          child.once('exit', (code) =>
            reject(new Error(`worker ${w} exited (${code}) before its end:\n${output}`)),
          )
        })
      })
      await Promise.all(done)
      // A clean stop of every process, at once.
      const exits = children.map((child) => once(child, 'exit'))
      for (const child of children) child.kill('SIGTERM')
      expect((await Promise.all(exits)).map(([code]) => code)).toEqual(children.map(() => 0))

      const rows = await store.query<{ key_id: string; outcome: string; count: string }>(
        `SELECT key_id, outcome, sum(count)::bigint AS count FROM "${schema}".key_usage GROUP BY 1, 2`,
      )
      const stored = new Map(rows.map((row) => [`${row.key_id} ${row.outcome}`, Number(row.count)]))
      expect([...stored.values()].reduce((a, b) => a + b, 0)).toBe(PROCESSES * PER_PROCESS)
      expect(Object.fromEntries(stored)).toEqual(Object.fromEntries(expected))
    } finally {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
      await store.query(`DROP SCHEMA "${schema}" CASCADE`)
      await store.close()
      await rm(dir, { recursive: true, force: true })
    }
  }, 600_000)
})
