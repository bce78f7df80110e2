import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, expect, it } from 'vitest'
import { createSqliteKeyStore } from './index.js'
import { killChildren, startChild } from './test/child.js'

const dir = mkdtempSync(join(tmpdir(), 'keyward-sqlite-kill-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
afterEach(killChildren)

it('kill -9 under writes loses no acknowledged write: every key a writer was told of is there after a restart', async () => {
  const path = join(dir, 'killed.db')
  for (let round = 0; round < 3; round++) {
    const writer = startChild(path, 'write')
    // Killed in the middle of its writes, after some hundreds were acknowledged.
    await writer.line(
      (line) => line.error !== undefined || writer.lines.filter((l) => l.id).length >= 200 + round * 37,
    )
    await writer.kill()
    const acknowledged = writer.lines.flatMap((line) => (line.id ? [line.id] : []))
    expect(writer.lines.find((line) => line.error)).toBeUndefined()
    expect(acknowledged.length).toBeGreaterThanOrEqual(200)
    const store = await createSqliteKeyStore({ path, waitMs: 0 })
    try {
      const missing = []
      for (const id of acknowledged) if (!(await store.findKeyById(id))) missing.push(id)
      expect(missing).toEqual([])
    } finally {
      await store.close()
    }
  }
})
