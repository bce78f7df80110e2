// docs/verify-service.md against the built server, started as a real process: its shell blocks run
// as they are (the first one is the page's answer, field for field), and so do the Python and Go
// clients of examples/server/clients (Go where the toolchain is installed).
import { execFile, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { blocksOf } from '../../guide.js'
import {
  type FirstProject,
  firstProject,
  type ServerProcess,
  serverScope,
  startServer,
} from './server-process.js'

const guide = readFileSync(new URL('../../../docs/verify-service.md', import.meta.url), 'utf8')
const shell = blocksOf(guide, 'sh')
const answers = blocksOf(guide, 'json').map((block) => JSON.parse(block))
const curls = shell.filter((block) => block.startsWith('curl '))
const CLIENTS = fileURLToPath(new URL('../clients/', import.meta.url))
const unknownKey = `ak_${'Q'.repeat(32)}`
const GO_MISSING = spawnSync('go', ['version']).status === 0 ? undefined : 'go is not installed'

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a command with the environment a reader has set, and nothing of the tests'. */
async function run(command: string, args: string[], env: Record<string, string>, cwd?: string): Promise<Run> {
  return promisify(execFile)(command, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    ...(cwd ? { cwd } : {}),
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof error.code === 'number' ? error.code : null,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  )
}

/** The page's answer with the ids it cannot know replaced by these. */
const documented = (answer: Record<string, unknown>, keyId: unknown, projectId: string) => ({
  ...answer,
  key_id: keyId,
  owner: { type: 'project', id: projectId },
})

describe('docs/verify-service.md, against the built server', () => {
  const scope = serverScope('keyward-verify-')
  let server: ServerProcess
  let first: FirstProject
  let token: string
  let env: Record<string, string>

  beforeAll(async () => {
    // The page's own recipe makes the service token and its digest (without starting the server).
    const recipe = shell.find((block) => block.includes('KEYWARD_VERIFY_TOKENS'))!
    const made = await run(
      'sh',
      ['-c', `${recipe.replace('pnpm start\n', '')}echo "$TOKEN $KEYWARD_VERIFY_TOKENS"`],
      {},
    )
    const [madeToken, digest] = made.stdout.trim().split(' ')
    token = madeToken!
    server = await startServer(scope.cwd(), {
      KEYWARD_DATA_DIR: `${scope.cwd()}/data`,
      KEYWARD_VERIFY_TOKENS: digest!,
    })
    scope.onCleanup(() => server.stop())
    first = await firstProject(server, 'Verified')
    env = {
      SERVICE_BASE_URL: server.baseUrl,
      SERVICE_DEVELOPER_KEY: first.developerKey,
      API_KEY: first.apiKey.key,
      KEYWARD_VERIFY_TOKEN: token,
    }
  }, 120_000)

  it('has curl commands, and its first block is one', () => {
    expect(shell[0]).toBe(curls[0])
    expect(curls.length).toBeGreaterThanOrEqual(2)
    expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/)
  })

  it('answers its first curl command with the answer the page shows', async () => {
    const answer = await run('sh', ['-c', curls[0]!], env)
    const body = JSON.parse(answer.stdout)
    expect(body).toEqual(documented(answers[0], body.key_id, first.project.id))
    expect(body.key_id).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('answers every curl command of the page, the service token one included', async () => {
    for (const command of curls) {
      const body = JSON.parse((await run('sh', ['-c', command], env)).stdout)
      expect(body).toMatchObject({ valid: true, owner: { id: first.project.id } })
    }
    // Without the credentials the page sets, the same commands are refused.
    const anonymous = await run('sh', ['-c', curls[1]!], { ...env, KEYWARD_VERIFY_TOKEN: 'not-the-token' })
    expect(JSON.parse(anonymous.stdout).detail[0].type).toBe('token_invalid')
  })

  it('shows a refusal as the server answers an unknown key', async () => {
    const refused = await run('sh', ['-c', curls[0]!], { ...env, API_KEY: unknownKey })
    expect(JSON.parse(refused.stdout)).toEqual(answers[1])
  })

  it('runs the Python client: 0 for a valid key, 1 for a refused one, 2 without a credential', async () => {
    const script = `${CLIENTS}python/keyward_verify.py`
    const valid = await run('python3', [script, first.apiKey.key, '--ip', '203.0.113.7'], env)
    expect([valid.code, JSON.parse(valid.stdout).valid, valid.stderr]).toEqual([0, true, ''])
    const refused = await run('python3', [script, unknownKey], env)
    expect([refused.code, JSON.parse(refused.stdout).code]).toEqual([1, 'key_invalid'])
    const viaToken = await run('python3', [script, first.apiKey.key, '--project-id', first.project.id], {
      SERVICE_BASE_URL: server.baseUrl,
      KEYWARD_VERIFY_TOKEN: token,
    })
    expect([viaToken.code, JSON.parse(viaToken.stdout).owner.id]).toEqual([0, first.project.id])
    const mismatch = await run('python3', [script, first.apiKey.key, '--project-id', 'another'], env)
    expect([mismatch.code, JSON.parse(mismatch.stdout).code]).toEqual([1, 'project_mismatch'])
    const none = await run('python3', [script, first.apiKey.key], { SERVICE_BASE_URL: server.baseUrl })
    expect(none.code).toBe(2)
    const { KEYWARD_VERIFY_TOKEN: _, ...developerEnv } = env
    const wrong = await run('python3', [script, first.apiKey.key], {
      ...developerEnv,
      SERVICE_DEVELOPER_KEY: unknownKey,
    })
    expect([wrong.code, wrong.stdout, wrong.stderr]).toEqual([2, '', expect.stringContaining('key_invalid')])
    expect(wrong.stderr).not.toContain(unknownKey)
  })

  it.skipIf(GO_MISSING)(
    `runs the Go client${GO_MISSING ? ` (skipped: ${GO_MISSING})` : ''}`,
    async () => {
      // Built once, then run as a command: `go run` answers 1 for any failure of the program.
      const binary = `${scope.cwd()}/verify`
      const built = await run(
        'go',
        ['build', '-o', binary, 'verify.go'],
        { GOCACHE: `${scope.cwd()}/go-cache` },
        `${CLIENTS}go`,
      )
      expect([built.code, built.stderr]).toEqual([0, ''])
      const { KEYWARD_VERIFY_TOKEN: _, ...developerEnv } = env
      const valid = await run(binary, ['-ip', '203.0.113.7', first.apiKey.key], developerEnv)
      expect([valid.code, valid.stderr]).toEqual([0, ''])
      expect(JSON.parse(valid.stdout)).toMatchObject({
        valid: true,
        owner: { type: 'project', id: first.project.id },
      })
      const refused = await run(binary, [unknownKey], developerEnv)
      expect([refused.code, JSON.parse(refused.stdout).code]).toEqual([1, 'key_invalid'])
      const mismatch = await run(binary, ['-project-id', 'another', first.apiKey.key], developerEnv)
      expect([mismatch.code, JSON.parse(mismatch.stdout).code]).toEqual([1, 'project_mismatch'])
      const viaToken = await run(binary, [first.apiKey.key], {
        SERVICE_BASE_URL: server.baseUrl,
        KEYWARD_VERIFY_TOKEN: token,
      })
      expect([viaToken.code, JSON.parse(viaToken.stdout).valid]).toEqual([0, true])
      const wrong = await run(binary, [first.apiKey.key], { ...env, KEYWARD_VERIFY_TOKEN: 'nope' })
      expect([wrong.code, wrong.stdout, wrong.stderr]).toEqual([
        2,
        '',
        expect.stringContaining('token_invalid'),
      ])
      const none = await run(binary, [first.apiKey.key], { SERVICE_BASE_URL: server.baseUrl })
      expect(none.code).toBe(2)
    },
    180_000,
  )
})
