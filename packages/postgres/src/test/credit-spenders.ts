// Processes that spend credits, for the credit tests: each child (spend-credits.mjs) runs the built
// store and a Keyward service of its own and verifies keys through guards, request i costing
// 1 + (i % 5); the parent reads what the store holds. And the same on PGlite, whose data
// directory admits one process: 8 services, each with a store instance of its own over the one
// database, stand for 8 processes.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface, type Interface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { apiKeyGuard, createKeyward } from '@keyward/core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PgBouncer, pgbouncerUnavailable } from '../../../../scripts/pgbouncer.mjs'
import { PostgresKeyStore } from '../base.js'
import { type Harness, PG_URL, pgHarness } from './harness.js'

const SPEND = fileURLToPath(new URL('./spend-credits.mjs', import.meta.url))

/** What one process's `spend` answered. */
export interface Spent {
  readonly acceptedCost: number
  readonly accepted: number
  readonly refused: number
  readonly other: string[]
}

export interface Spender {
  readonly child: ChildProcess
  send<T>(command: object): Promise<T>
}

/** What the processes spend: the keys they present, by turns, and the stored balance they draw on. */
export interface Spending {
  readonly keys: readonly string[]
  balance(): Promise<number>
}

/** The accepted cost of all processes' answers. */
export const sum = (spent: readonly Spent[]) => spent.reduce((total, s) => total + s.acceptedCost, 0)

const children: ChildProcess[] = []

/** Kills, after each test of the file that calls it, the children that test left running. */
export function killSpendersAfterEach(): void {
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL')
        await once(child, 'exit')
      }
    }
  })
}

/** A child process that spends through `keys` (or the one `key`), answering one JSON line a command. */
export function spender(options: {
  url: string
  schema: string
  key?: string
  keys?: readonly string[]
  preparedStatements?: boolean
}): Spender {
  return childOf(SPEND, options)
}

/**
 * A child process running `script` (a `.mjs` file beside this one) with `options` as its JSON
 * argument, answering one JSON line a command; killed after each test by {@link killSpendersAfterEach}.
 */
export function childOf(script: string, options: object): Spender {
  const child = spawn(process.execPath, [script, JSON.stringify(options)], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  children.push(child)
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const lines: Interface = createInterface({ input: child.stdout! })
  const waiting: ((line: string) => void)[] = []
  lines.on('line', (line) => waiting.shift()?.(line))
  return {
    child,
    send: <T>(command: object) =>
      new Promise<T>((resolve, reject) => {
        waiting.push((line) => resolve(JSON.parse(line) as T))
        // 'close', not 'exit': a child that answered and exited has its answer read first.
        child.once('close', (code, signal) => reject(new Error(`exited (${code ?? signal}): ${stderr}`)))
        child.stdin!.write(`${JSON.stringify(command)}\n`)
      }),
  }
}

/**
 * 8 processes send 4,000 concurrent verifications (500 each, costing 1 to 5) against a balance of
 * 1,000: never more accepted, and, after clean stops, the balance is 1,000 minus the accepted cost.
 */
export async function eightProcesses(
  harness: Harness,
  url: string,
  { keys, balance }: Spending,
  preparedStatements = true,
) {
  const processes = Array.from({ length: 8 }, () =>
    spender({ url, schema: harness.schema, keys, preparedStatements }),
  )
  const spent = await Promise.all(
    processes.map((p, i) => p.send<Spent>({ op: 'spend', count: 500, start: i })),
  )
  const accepted = sum(spent)
  expect(spent.flatMap((s) => s.other)).toEqual([])
  expect(accepted).toBeLessThanOrEqual(1000)
  await Promise.all(processes.map((p) => p.send({ op: 'close' })))
  expect(await balance()).toBe(1000 - accepted)
  return { accepted, refused: spent.reduce((total, s) => total + s.refused, 0) }
}

/**
 * The PGlite twin of {@link eightProcesses}: 8 services in this process, each with a store
 * instance of its own over the harness's database.
 */
export async function eightServices(harness: Harness, { keys, balance }: Spending) {
  const services = Array.from({ length: 8 }, () =>
    createKeyward({
      store: new PostgresKeyStore(harness.driver, { schema: harness.schema }),
      trackLastUsed: false,
    }),
  )
  const guards = services.map((keyward) => [1, 2, 3, 4, 5].map((cost) => apiKeyGuard(keyward, { cost })))
  const request = (key: string) => ({
    method: 'GET',
    url: '/',
    params: {},
    header: (name: string) => (name === 'x-api-key' ? key : undefined),
  })
  let accepted = 0
  await Promise.all(
    Array.from({ length: 4000 }, async (_, i) => {
      const cost = 1 + (i % 5)
      const result = await guards[i % 8]![cost - 1]!(request(keys[i % keys.length]!))
      if (result.ok) accepted += cost
      else expect(JSON.parse(result.response.body).detail[0].type).toBe('usage_exceeded')
    }),
  )
  expect(accepted).toBeLessThanOrEqual(1000)
  await Promise.all(services.map((keyward) => keyward.close()))
  expect(await balance()).toBe(1000 - accepted)
  return accepted
}

/** Makes a harness on PostgreSQL for each call; each is closed after its test. */
export function pgHarnesses(): () => Promise<Harness> {
  const open: Harness[] = []
  afterEach(async () => {
    for (const harness of open.splice(0)) await harness.close()
  })
  return async () => {
    const harness = await pgHarness()
    open.push(harness)
    return harness
  }
}

const bouncerMissing =
  pgbouncerUnavailable() ?? (PG_URL ? undefined : 'KEYWARD_PG_URL is not set: PgBouncer needs a server')

/**
 * {@link eightProcesses} through PgBouncer in transaction mode (prepared statements off), in a
 * `describe` of its own named `title`: skipped, saying why, without PgBouncer or a server. The
 * accepted cost goes to `report`.
 */
export function eightProcessesThroughBouncer(
  title: string,
  test: string,
  spending: (harness: Harness) => Promise<Spending>,
  report: (accepted: number) => void,
): void {
  describe.skipIf(bouncerMissing)(`${title}${bouncerMissing ? ` (skipped: ${bouncerMissing})` : ''}`, () => {
    let bouncer: PgBouncer
    beforeAll(async () => {
      bouncer = await PgBouncer.start({ server: PG_URL as string, poolMode: 'transaction' })
    })
    afterAll(() => bouncer?.destroy())

    it(test, async () => {
      const harness = await pgHarness()
      try {
        const url = bouncer.through(PG_URL as string)
        const { accepted } = await eightProcesses(harness, url, await spending(harness), false)
        report(accepted)
      } finally {
        await harness.close()
      }
    }, 120_000)
  })
}
