import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { cp, mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createKeyward } from '@keyward/core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createPGliteKeyStore, DataDirInUseError } from './pglite.js'

// Real processes on one data directory. The child runs the built store (the root `pnpm test`
// builds it first): it opens the directory, issues a key, prints it and runs until killed.
const HOLD = fileURLToPath(new URL('./test/hold-data-dir.mjs', import.meta.url))

interface Printed {
  readonly pid: number
  readonly key?: string
  readonly error?: string
  readonly name?: string
}

interface Holder {
  readonly child: ChildProcess
  /** The line it prints once it has the store open and a key issued (or was refused). */
  readonly printed: Promise<Printed>
  readonly exited: Promise<unknown[]>
}

const children: ChildProcess[] = []
const dirs: string[] = []

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await once(child, 'exit')
    }
  }
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

// A migrated data directory, copied for each test: PGlite's first start (initdb) is the slow part.
let template: string
beforeAll(async () => {
  template = await mkdtemp(join(tmpdir(), 'keyward-lock-template-'))
  await (await createPGliteKeyStore({ dataDir: template })).close()
}, 60_000)
afterAll(() => rm(template, { recursive: true, force: true }))

async function tempDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'keyward-lock-'))
  dirs.push(dir)
  await cp(template, join(dir, 'data'), { recursive: true })
  return join(dir, 'data')
}

function hold(dataDir: string, options: { closeOnSignal?: boolean; waitMs?: number } = {}): Holder {
  const child = spawn(
    process.execPath,
    [HOLD, dataDir, ...(options.closeOnSignal ? ['close-on-signal'] : [])],
    {
      env: {
        PATH: process.env.PATH ?? '',
        ...(options.waitMs === undefined ? {} : { DATA_DIR_WAIT_MS: String(options.waitMs) }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  children.push(child)
  const exited = once(child, 'exit')
  let stdout = ''
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const printed = new Promise<Printed>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      const end = stdout.indexOf('\n')
      if (end >= 0) resolve(JSON.parse(stdout.slice(0, end)) as Printed)
    })
    child.on('exit', (code, signal) => reject(new Error(`exited (${code ?? signal}) first: ${stderr}`)))
  })
  return { child, printed, exited }
}

/** Leaves a lock on the directory as a process would, its owner named inside. */
async function lockAs(dataDir: string, owner: object): Promise<void> {
  await mkdir(join(dataDir, 'keyward.lock'), { recursive: true })
  await writeFile(join(dataDir, 'keyward.lock', 'owner.json'), JSON.stringify(owner))
}

/** Opens the directory in this process and checks that the key still verifies. */
async function expectKeyVerifies(dataDir: string, { key, pid }: Printed): Promise<void> {
  const store = await createPGliteKeyStore({ dataDir })
  try {
    const projectId = `p-${pid}`
    const auth = await createKeyward({ store }).authenticate(
      { projectKey: key },
      { scope: 'project', projectId },
    )
    expect(auth.projectKey?.keyPrefix).toBe(key?.slice(0, 8))
    expect(await store.listKeysByOwner({ type: 'project', id: projectId })).toHaveLength(1)
  } finally {
    await store.close()
  }
}

describe('one process per PGlite data directory, a dead one never blocks it', () => {
  it('opens a directory whose process was killed with SIGKILL, at once, with its keys', async () => {
    const dataDir = await tempDataDir()
    const first = hold(dataDir)
    const printed = await first.printed
    first.child.kill('SIGKILL')
    // Watch-mode style: the next one starts without waiting for the old one to be gone.
    await expectKeyVerifies(dataDir, printed)
  }, 60_000)

  it('opens a directory whose process was ended by SIGINT (Ctrl-C) without closing it', async () => {
    const dataDir = await tempDataDir()
    const first = hold(dataDir)
    const printed = await first.printed
    first.child.kill('SIGINT')
    expect(await first.exited).toEqual([null, 'SIGINT'])
    await expectKeyVerifies(dataDir, printed)
  }, 60_000)

  it('leaves a clean directory when the process closes the store on SIGINT', async () => {
    const dataDir = await tempDataDir()
    const first = hold(dataDir, { closeOnSignal: true })
    const printed = await first.printed
    first.child.kill('SIGINT')
    expect(await first.exited).toEqual([0, null])
    const left = await readdir(dataDir)
    for (const mark of ['keyward.lock', 'postmaster.pid']) expect(left).not.toContain(mark)
    await expectKeyVerifies(dataDir, printed)
  }, 60_000)

  it('refuses a second live process, naming the directory and the process that has it', async () => {
    const dataDir = await tempDataDir()
    const first = hold(dataDir)
    const { pid } = await first.printed
    const second = hold(dataDir, { waitMs: 300 })
    expect(await second.printed).toEqual({
      pid: second.child.pid,
      name: 'DataDirInUseError',
      error:
        `The PGlite data directory ${dataDir} is open in process ${pid}: PGlite allows one process ` +
        'per directory, and two corrupt it. Stop that process first.',
    })
    expect(await second.exited).toEqual([2, null])
    // In this process too, with the error's fields.
    const error = await createPGliteKeyStore({ dataDir }, { dataDirWaitMs: 0 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DataDirInUseError)
    expect(error).toMatchObject({ dataDir, pid })
  }, 60_000)

  it('restarts as a watcher does: the old process is stopped and the new one started at once', async () => {
    const dataDir = await tempDataDir()
    const first = hold(dataDir, { closeOnSignal: true })
    const before = await first.printed
    first.child.kill('SIGTERM') // the new one starts while the old one is still closing
    const second = hold(dataDir, { closeOnSignal: true })
    const after = await second.printed
    expect(after.key).toMatch(/^ak_/)
    expect(await first.exited).toEqual([0, null])
    second.child.kill('SIGKILL') // then a crash, and a start right after it
    const third = hold(dataDir)
    expect((await third.printed).key).toMatch(/^ak_/)
    third.child.kill('SIGKILL')
    await expectKeyVerifies(dataDir, before)
    await expectKeyVerifies(dataDir, after)
  }, 60_000)

  it('of three processes started together on the lock of a dead one, one takes it over', async () => {
    const dataDir = await tempDataDir()
    const dead = spawn(process.execPath, ['-e', ''])
    await once(dead, 'exit')
    await lockAs(dataDir, { pid: dead.pid, host: hostname() })
    const started = [
      hold(dataDir, { waitMs: 1000 }),
      hold(dataDir, { waitMs: 1000 }),
      hold(dataDir, { waitMs: 1000 }),
    ]
    const printed = await Promise.all(started.map((holder) => holder.printed))
    const winners = printed.filter((line) => line.key !== undefined)
    expect(winners).toHaveLength(1)
    for (const line of printed.filter((line) => line.key === undefined)) {
      expect(line.error).toContain(`is open in process ${winners[0]!.pid}:`)
    }
  }, 60_000)

  it('refuses a directory this process has open, at once', async () => {
    const dataDir = await tempDataDir()
    const store = await createPGliteKeyStore({ dataDir })
    try {
      const started = Date.now()
      for (const given of [dataDir, `file://${dataDir}`]) {
        const error = await createPGliteKeyStore({ dataDir: given }).catch((e: unknown) => e)
        expect(error).toBeInstanceOf(DataDirInUseError)
        expect(error).toMatchObject({ dataDir: given, pid: process.pid })
      }
      expect(Date.now() - started).toBeLessThan(3000) // not the default wait of 3 s
    } finally {
      await store.close()
    }
    await (await createPGliteKeyStore({ dataDir })).close()
  }, 60_000)

  it('refuses a lock held on another host, and names it', async () => {
    const dataDir = await tempDataDir()
    await lockAs(dataDir, { pid: 4242, host: 'elsewhere' })
    await expect(createPGliteKeyStore({ dataDir }, { dataDirWaitMs: 0 })).rejects.toThrow(
      `The PGlite data directory ${dataDir} is open in process 4242 on elsewhere:`,
    )
    // Not refreshed for 10 seconds: that host's process is gone too.
    const past = new Date(Date.now() - 11_000)
    await utimes(join(dataDir, 'keyward.lock'), past, past)
    await (await createPGliteKeyStore({ dataDir }, { dataDirWaitMs: 0 })).close()
  }, 60_000)

  it.skipIf(!existsSync('/proc/self/stat'))(
    'takes over a lock whose pid now belongs to another process (started at another time)',
    async () => {
      const dataDir = await tempDataDir()
      // A live pid (this test's parent), but not the process that took the lock.
      await lockAs(dataDir, { pid: process.ppid, host: hostname(), start: '1' })
      await (await createPGliteKeyStore({ dataDir }, { dataDirWaitMs: 0 })).close()
    },
    60_000,
  )

  it('opens a directory with a postmaster.pid that PGlite left behind, and removes it', async () => {
    const dataDir = await tempDataDir()
    await mkdir(dataDir, { recursive: true })
    await writeFile(join(dataDir, 'postmaster.pid'), '-42\n/pglite/data\n')
    const store = await createPGliteKeyStore({ dataDir })
    await store.close()
    expect(await readdir(dataDir)).not.toContain('postmaster.pid')
  }, 60_000)

  it('checks the option dataDirWaitMs', async () => {
    await expect(createPGliteKeyStore({}, { dataDirWaitMs: -1 })).rejects.toThrow(
      'createPGliteKeyStore: option `dataDirWaitMs` must be a non-negative integer, got -1.',
    )
  })
})
