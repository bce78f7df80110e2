// Running commands from the release scripts: each command is echoed, its output streams
// through, and a non-zero exit stops the script with the command named.
import { spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Thrown when a command exits non-zero; the scripts print `message` and exit 1. */
export class CommandError extends Error {}

/**
 * Runs a command and returns its captured stdout (when `capture` is set) or ''.
 * `env` is merged into the current environment.
 */
export function run(command, args, { cwd, env, capture = false, quiet = false } = {}) {
  if (!quiet) console.log(`$ ${[command, ...args].join(' ')}${cwd ? `   (in ${cwd})` : ''}`)
  const result = spawnSync(command, args, {
    cwd,
    env: env ? { ...process.env, ...env } : process.env,
    stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
  if (result.error) throw new CommandError(`${command}: ${result.error.message}`)
  if (result.status !== 0) {
    const output = capture ? `\n${result.stdout}${result.stderr}` : ''
    throw new CommandError(`${[command, ...args].join(' ')} exited with ${result.status}.${output}`)
  }
  return capture ? result.stdout : ''
}

/** A new empty folder under the system's temporary folder, outside the workspace. */
export function tempDir(label) {
  return mkdtempSync(join(tmpdir(), `keyward-${label}-`))
}

/** Seconds since `start` (a `performance.now()` value), with one decimal. */
export function seconds(start) {
  return `${((performance.now() - start) / 1000).toFixed(1)}s`
}

/**
 * Runs `main` and turns a CommandError (or any failure) into a one-line message and exit 1,
 * so that a failing step reads as what failed rather than as a stack trace.
 */
export async function script(name, main) {
  const start = performance.now()
  try {
    await main()
    console.log(`\n${name}: ok (${seconds(start)})`)
  } catch (error) {
    console.error(
      `\n${name}: FAILED (${seconds(start)})\n${error instanceof CommandError ? error.message : error.stack}`,
    )
    process.exit(1)
  }
}
