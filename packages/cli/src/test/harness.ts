import { type AuditRecord, createKeyward, type KeyRecord, type KeyStore, MemoryKeyStore } from '@keyward/core'
import type { CliIO } from '../io.js'
import { run } from '../run.js'
import type { StoreLocation } from '../store.js'

/** The store options of the tests: the harness never opens a real directory. */
export const STORE = ['--data-dir', '/var/lib/keyward'] as const

export interface HarnessOptions {
  readonly stdin?: string
  readonly tty?: boolean
  readonly env?: Record<string, string>
  /** Replaces the store the CLI opens, e.g. to make it fail. */
  readonly store?: (records: Map<string, KeyRecord>) => KeyStore
  readonly openFails?: Error
  /** How long opening the store takes, in milliseconds. */
  readonly openDelayMs?: number
}

/** A CLI world in memory: one store (shared by every run of the harness), captured output. */
export function harness(options: HarnessOptions = {}) {
  const records = new Map<string, KeyRecord>()
  // The audit log, shared by every run as the records are.
  const auditLog: AuditRecord[] = []
  const opened: StoreLocation[] = []
  let closed = 0
  let stdout = ''
  let stderr = ''
  const io: CliIO = {
    stdin: {
      isTTY: options.tty ?? false,
      async *[Symbol.asyncIterator]() {
        if (options.stdin !== undefined) yield new TextEncoder().encode(options.stdin)
      },
    },
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env: options.env ?? {},
    openStore: async (location) => {
      opened.push(location)
      if (options.openDelayMs) await new Promise((resolve) => setTimeout(resolve, options.openDelayMs))
      if (options.openFails) throw options.openFails
      const store = options.store?.(records) ?? new MemoryKeyStore({ records, auditLog })
      return Object.assign(store, { close: async () => void closed++ })
    },
  }
  return {
    records,
    opened,
    closed: () => closed,
    /** Runs the CLI and returns its exit code and what it printed during this run. */
    async run(...argv: string[]) {
      const before = { out: stdout.length, err: stderr.length }
      const code = await run(argv, io)
      return { code, stdout: stdout.slice(before.out), stderr: stderr.slice(before.err) }
    },
    /** A key service over the same records, to arrange and verify. */
    keyward: () => createKeyward({ store: new MemoryKeyStore({ records, auditLog }) }),
    auditLog,
  }
}
