// What every consumer fixture shares. The consumer test copies this file beside the fixtures
// (as fixture.mts, fixture.cts and fixture.ts) and points each fixture's import at its copy.
import assert from 'node:assert/strict'

/** What the protected route answered: its status and its parsed JSON body. */
export interface Answer {
  readonly status: number
  readonly body: unknown
}

/** Calls `GET /api/v1/projects/{projectId}/items` of a fixture's app with these headers. */
export type CallRoute = (projectId: string, headers: Record<string, string>) => Promise<Answer>

/**
 * Checks a route protected by an adapter's `requireProject`: 200 with the project's key, 401
 * `key_missing` without it, 403 `project_mismatch` for another project.
 */
export async function checkProtectedRoute(call: CallRoute, key: string): Promise<string> {
  const ok = await call('proj_1', { 'X-API-Key': key })
  assert.equal(ok.status, 200)
  assert.deepEqual(ok.body, { projectId: 'proj_1' })
  for (const [projectId, headers, status, type] of [
    ['proj_1', {}, 401, 'key_missing'],
    ['proj_2', { 'X-API-Key': key }, 403, 'project_mismatch'],
  ] as const) {
    const refused = await call(projectId, headers)
    assert.equal(refused.status, status)
    assert.equal((refused.body as { detail: { type: string }[] }).detail[0]?.type, type)
  }
  return '200 with the key, 401 key_missing, 403 project_mismatch'
}

/**
 * Runs a fixture and prints `name (format): what it checked`. The runner names the format and
 * runtime on the command line: `node out/hono.mjs ESM`, `bun out/hono.cjs CommonJS on Bun 1.2.3`.
 */
export function runFixture(name: string, main: () => Promise<string>): void {
  const format = process.argv.slice(2).join(' ') || 'unnamed'
  main().then(
    (checked) => console.log(`${name} (${format}): ${checked}`),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    },
  )
}
