// The guide's program, built and run as a reader runs it, against a real PostgreSQL: the
// committed project's key verifies, the rolled-back one's is refused.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'

const PG_URL = process.env.KEYWARD_PG_URL
const dir = fileURLToPath(new URL('..', import.meta.url))
const schema = `kw_example_${process.pid}_${Date.now().toString(36)}`

describe.skipIf(!PG_URL)('the application database example (set KEYWARD_PG_URL to run)', () => {
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: PG_URL })
    await admin.connect()
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await admin.end()
  })

  it('commits a project and its key together, and rolls both back together', () => {
    const build = spawnSync('pnpm', ['run', 'build'], { cwd: dir, encoding: 'utf8', timeout: 120_000 })
    expect(build.status, build.stderr).toBe(0)
    const started = spawnSync(process.execPath, ['dist/main.js'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, DATABASE_URL: PG_URL, KEYWARD_PG_SCHEMA: schema },
    })
    expect(started.stderr).toBe('')
    expect(started.status).toBe(0)
    const lines = started.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^Committed: project proj_[\w-]+, key ak_[\w-]{5}\.\.\. verifies$/)
    expect(lines[1]).toMatch(
      /^Rolled back: project proj_[\w-]+, key ak_[\w-]{5}\.\.\. is refused \(key_invalid\)$/,
    )
    // Never a full key on the output.
    expect(started.stdout).not.toMatch(/ak_[\w-]{32}/)
  }, 180_000)
})
