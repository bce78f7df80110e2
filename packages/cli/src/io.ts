import { usageError } from './exit.js'
import type { OpenStore } from './store.js'

/** Somewhere to write text: `process.stdout`, `process.stderr`, or a test's buffer. */
export interface TextSink {
  write(chunk: string): unknown
}

/** The world a CLI run sees. `bin` passes the process's; tests pass their own. */
export interface CliIO {
  /** The standard input: read by `hash` and `check`. */
  readonly stdin: AsyncIterable<string | Uint8Array> & { readonly isTTY?: boolean }
  readonly stdout: TextSink
  readonly stderr: TextSink
  /** Read for `KEYWARD_DATA_DIR` and `KEYWARD_PG_URL`. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Opens the store of the store commands. Default: {@link openStore}. */
  readonly openStore?: OpenStore
}

// A key is 35 characters; anything much longer on stdin is a mistake, not a key.
const MAX_STDIN_BYTES = 64 * 1024

/**
 * @internal Reads one key from stdin for `command`: refuses a terminal (the key would be
 * typed in the clear and land in scrollback), trims one trailing newline, and refuses
 * empty input or more than one line.
 */
export async function readKeyFromStdin(io: CliIO, command: string): Promise<string> {
  if (io.stdin.isTTY) {
    throw usageError(
      `keyward ${command} reads the key from stdin, not from the terminal, so that it stays out of ` +
        `your shell history and scrollback. Pipe it in: keyward ${command} < key.txt, or ` +
        `printenv SERVICE_DEVELOPER_KEY | keyward ${command}`,
    )
  }
  const decoder = new TextDecoder()
  let text = ''
  let bytes = 0
  for await (const chunk of io.stdin) {
    bytes += typeof chunk === 'string' ? chunk.length : chunk.byteLength
    if (bytes > MAX_STDIN_BYTES)
      throw usageError(`Expected one key on stdin, got more than ${MAX_STDIN_BYTES} bytes.`)
    text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
  }
  text += decoder.decode()
  const key = text.replace(/\r?\n$/, '')
  if (key === '')
    throw usageError(`Expected a key on stdin, got nothing. Pipe it in: keyward ${command} < key.txt`)
  if (/[\r\n]/.test(key)) throw usageError('Expected one key on one line of stdin, got several lines.')
  return key
}
