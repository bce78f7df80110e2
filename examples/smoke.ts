// The smoke test every framework example passes: it builds the example, starts it as a real
// process on a free port, reads the keys it printed, and calls its protected route.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { walkIdentities } from './identities.js'

/** What an example printed at start. */
interface Started {
  readonly url: string
  readonly apiKey: string
  readonly developerKey: string
  readonly output: string
}

const PRINTED = {
  url: /listening on (http:\/\/127\.0\.0\.1:\d+)/,
  apiKey: /\(X-API-Key\): +(\S+)/,
  developerKey: /\(X-Developer-Key\): +(\S+)/,
}

/** How an example is started, when not with `node dist/main.js`. */
export interface SmokeOptions {
  /** The command that starts the built example on `PORT` (0: a free port), run with node. */
  readonly command?: readonly string[]
  /** How long its build may take, in ms. Default 60 s. */
  readonly buildTimeout?: number
  /** Variables of its environment besides `PORT` (the NestJS example's `PLATFORM`). */
  readonly env?: Readonly<Record<string, string>>
  /** On SIGTERM it closes and exits with code 0, rather than being ended by the signal. */
  readonly exitsOnSigterm?: boolean
  /** It serves the administrative console at /console/ (`@keyward/console`). Default `true`. */
  readonly console?: boolean
  /**
   * It serves the routes its guide adds (`GET /api/v1/whoami` behind `requireKey`, and orders
   * created with a JSON body and read back, a KeywardError for an unknown one). Default `false`.
   */
  readonly guideRoutes?: boolean
  /**
   * Its key routes keep identities (over a store that does): the walk-through of
   * docs/identities.md, two keys of one identity that share 100 credits and 10 requests a second,
   * stop together on its protected route. Default `false`.
   */
  readonly identities?: boolean
}

/** Starts `command` in `dir` on port 0 and resolves once it has printed its keys. */
async function start(
  dir: string,
  command: readonly string[],
  env: Readonly<Record<string, string>>,
  child: (process: ChildProcess) => void,
): Promise<Started> {
  const example = spawn(process.execPath, command, {
    cwd: dir,
    env: { ...process.env, ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child(example)
  let output = ''
  example.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  example.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const deadline = Date.now() + 20_000
  for (;;) {
    const [, url] = PRINTED.url.exec(output) ?? []
    const [, apiKey] = PRINTED.apiKey.exec(output) ?? []
    const [, developerKey] = PRINTED.developerKey.exec(output) ?? []
    if (url && apiKey && developerKey) return { url, apiKey, developerKey, output }
    if (example.exitCode !== null || Date.now() > deadline) {
      throw new Error(`The example did not start (exit code ${example.exitCode}):\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/**
 * Smoke-tests the example in `dir` (a `file:` URL of its folder): `GET
 * /api/v1/projects/proj_1/hello` answers 200 with the context to the project's API key and 401
 * (or 403) with the error body to anything else, and the key endpoints are mounted.
 */
export function smokeTest(name: string, dir: URL, options: SmokeOptions = {}): void {
  const { command = ['dist/main.js'], buildTimeout = 60_000, exitsOnSigterm = false } = options
  describe(`${name}, started as a process`, () => {
    let example: ChildProcess | undefined
    let started: Started
    const hello = (headers: Record<string, string> = {}, projectId = 'proj_1') =>
      fetch(`${started.url}/api/v1/projects/${projectId}/hello`, { headers })
    const refusal = async (response: Response) => [
      response.status,
      ((await response.json()) as { detail: { type: string }[] }).detail[0]?.type,
    ]

    beforeAll(async () => {
      const cwd = fileURLToPath(dir)
      const build = spawnSync('pnpm', ['run', 'build'], { cwd, encoding: 'utf8' })
      expect(build.status, `${build.stdout}${build.stderr}`).toBe(0)
      started = await start(cwd, command, options.env ?? {}, (child) => (example = child))
    }, buildTimeout + 30_000)
    afterAll(() => {
      if (example?.exitCode === null) example.kill()
    })

    it('prints each key once, with the notice that it will not be shown again', () => {
      expect(started.apiKey).toMatch(/^ak_[A-Za-z0-9_-]{32}$/)
      expect(started.developerKey).toMatch(/^ak_[A-Za-z0-9_-]{32}$/)
      expect(started.output.split(started.apiKey)).toHaveLength(2)
      expect(started.output.split(started.developerKey)).toHaveLength(2)
      expect(started.output).toContain('These keys will not be shown again')
    })

    it('answers the project API key with 200 and the context', async () => {
      const response = await hello({ 'X-API-Key': started.apiKey })
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({
        message: 'Hello, proj_1!',
        projectId: 'proj_1',
        key: started.apiKey.slice(0, 8),
      })
    })

    it('answers 401 key_missing without a key, saying where to send one', async () => {
      const response = await hello()
      expect(response.status).toBe(401)
      expect(await response.json()).toEqual({
        detail: [
          {
            loc: ['header', 'x-api-key'],
            msg: "Send the project's API key in the X-API-Key header.",
            type: 'key_missing',
          },
        ],
      })
    })

    it('answers 401 to a key of the wrong type, a made-up key and a malformed one', async () => {
      const madeUp = `ak_${randomBytes(24).toString('base64url')}`
      expect(await refusal(await hello({ 'X-API-Key': started.developerKey }))).toEqual([
        401,
        'key_wrong_type',
      ])
      expect(await refusal(await hello({ 'X-API-Key': madeUp }))).toEqual([401, 'key_invalid'])
      expect(await refusal(await hello({ 'X-API-Key': started.apiKey.slice(0, 34) }))).toEqual([
        401,
        'key_malformed',
      ])
    })

    it("answers 403 project_mismatch to the key of another project's route", async () => {
      expect(await refusal(await hello({ 'X-API-Key': started.apiKey }, 'proj_2'))).toEqual([
        403,
        'project_mismatch',
      ])
    })

    it("mounts the key endpoints: the owner's developer key creates an API key that works", async () => {
      const created = await fetch(`${started.url}/api/v1/projects/proj_1/api-keys`, {
        method: 'POST',
        headers: { 'X-Developer-Key': started.developerKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'smoke test' }),
      })
      expect(created.status).toBe(201)
      const { key, project_id, name } = (await created.json()) as Record<string, string>
      expect([project_id, name]).toEqual(['proj_1', 'smoke test'])
      expect((await hello({ 'X-API-Key': key! })).status).toBe(200)
    })

    if (options.console !== false) {
      it("serves the console, whose session manages the project's keys in place of the developer key", async () => {
        const page = await fetch(`${started.url}/console/`)
        expect(page.status).toBe(200)
        expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
        const signIn = await fetch(`${started.url}/console/session`, {
          method: 'POST',
          headers: { 'X-Developer-Key': started.developerKey, Origin: started.url },
        })
        expect(signIn.status).toBe(201)
        const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!
        const listed = await fetch(`${started.url}/api/v1/projects/proj_1/api-keys`, {
          headers: { Cookie: cookie, 'X-Keyward-Console': '1' },
        })
        expect(listed.status).toBe(200)
        expect(JSON.stringify(await listed.json())).toContain(started.apiKey.slice(0, 8))
        // Projects are created and listed through the key routes, as the console's projects page does.
        const asPage = { Cookie: cookie, 'X-Keyward-Console': '1', Origin: started.url }
        const created = await fetch(`${started.url}/api/v1/projects`, {
          method: 'POST',
          headers: { ...asPage, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'Console' }),
        })
        expect(created.status).toBe(201)
        const projects = await fetch(`${started.url}/api/v1/projects`, { headers: asPage })
        const names = ((await projects.json()) as { projects: { name: string }[] }).projects.map(
          (p) => p.name,
        )
        expect(names).toEqual(['Console', 'Example'])
        expect(started.output).toContain(`Console: ${started.url}/console/`)
      })
    }

    if (options.guideRoutes) {
      it("serves its guide's routes: any key's project, a JSON body, a thrown KeywardError", async () => {
        const headers = { 'X-API-Key': started.apiKey, 'Content-Type': 'application/json' }
        const whoami = await fetch(`${started.url}/api/v1/whoami`, { headers })
        expect([whoami.status, await whoami.json()]).toEqual([200, { projectId: 'proj_1' }])
        expect(await refusal(await fetch(`${started.url}/api/v1/whoami`))).toEqual([401, 'key_missing'])
        const orders = `${started.url}/api/v1/projects/proj_1/orders`
        const created = await fetch(orders, { method: 'POST', headers, body: '{"sku":"a-1"}' })
        expect(created.status).toBe(201)
        const { id } = (await created.json()) as { id: string }
        const read = await fetch(`${orders}/${id}`, { headers })
        expect([read.status, await read.json()]).toEqual([200, { sku: 'a-1' }])
        expect(await refusal(await fetch(`${orders}/none`, { headers }))).toEqual([404, 'not_found'])
      })
    }

    if (options.identities) {
      it('walks docs/identities.md: two keys of one identity share its limit and its credits, and stop together', async () => {
        await walkIdentities(started.url, started.developerKey, '/api/v1/projects/proj_1/hello')
      }, 60_000)
    }

    it('stops on SIGTERM', async () => {
      const exited = once(example!, 'exit')
      example!.kill('SIGTERM')
      const [code, signal] = await exited
      expect([code, signal]).toEqual(exitsOnSigterm ? [0, null] : [null, 'SIGTERM'])
    })
  })
}
