import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const CHILD = fileURLToPath(new URL('./sqlite-child.mjs', import.meta.url))

/** A line a child prints. */
export interface Printed {
  readonly pid: number
  readonly ready?: boolean
  readonly id?: string
  readonly error?: string
  readonly name?: string
}

/** A child process on the built store, and every line it printed so far. */
export interface Child {
  readonly process: ChildProcess
  readonly lines: Printed[]
  /** Resolves with the first line that `match` keeps. */
  line(match: (line: Printed) => boolean): Promise<Printed>
  /** Kills it with SIGKILL and waits for its end. */
  kill(): Promise<void>
}

const started: Child[] = []

/** Starts a child (see sqlite-child.mjs); {@link killChildren} ends every one left. */
export function startChild(path: string, mode: 'hold' | 'write', env: Record<string, string> = {}): Child {
  const child = spawn(process.execPath, [CHILD, path, mode], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const lines: Printed[] = []
  const waiting: { match: (line: Printed) => boolean; resolve: (line: Printed) => void }[] = []
  createInterface({ input: child.stdout! }).on('line', (text) => {
    const line = JSON.parse(text) as Printed
    lines.push(line)
    for (const waiter of waiting.filter((w) => w.match(line))) {
      waiting.splice(waiting.indexOf(waiter), 1)
      waiter.resolve(line)
    }
  })
  const handle: Child = {
    process: child,
    lines,
    line: (match) => {
      const found = lines.find(match)
      return found ? Promise.resolve(found) : new Promise((resolve) => waiting.push({ match, resolve }))
    },
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = once(child, 'exit')
      child.kill('SIGKILL')
      await exited
    },
  }
  started.push(handle)
  return handle
}

/** Kills every child still running. */
export async function killChildren(): Promise<void> {
  for (const child of started.splice(0)) await child.kill()
}
