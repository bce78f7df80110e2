import { ErrorType } from '@keyward/core'
import { CliError, EXIT } from './exit.js'
import type { CliIO } from './io.js'
import { type OpenedStore, openStore, type StoreLocation } from './store.js'

/** @internal How long opening a store may take before the CLI says that it is waiting. */
export const NOTICE_AFTER_MS = 250

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`

/**
 * @internal Opens the store at `location`. When an embedded PGlite store takes longer than
 * {@link NOTICE_AFTER_MS} to start (seconds, the first time), says so on stderr, and when it is
 * ready; never with `quiet` (`--json`). PostgreSQL answers or fails within its connection
 * timeout, so it opens without a word. A store that cannot be opened is a {@link CliError}
 * that exits 3.
 */
export async function openWithNotice(
  io: CliIO,
  location: StoreLocation,
  { quiet }: { readonly quiet: boolean },
): Promise<OpenedStore> {
  const started = performance.now()
  let noticed = false
  const timer =
    quiet || !('dataDir' in location)
      ? undefined
      : setTimeout(() => {
          noticed = true
          io.stderr.write(
            `keyward: starting the embedded store in ${location.dataDir} (PGlite takes a few seconds to start)...\n`,
          )
        }, NOTICE_AFTER_MS)
  try {
    const store = await (io.openStore ?? openStore)(location)
    if (noticed) io.stderr.write(`keyward: store ready in ${seconds(started)}.\n`)
    return store
  } catch (error) {
    throw new CliError(
      ErrorType.storeUnavailable,
      `Cannot open the store: ${(error as Error)?.message ?? String(error)}`,
      EXIT.storeUnavailable,
    )
  } finally {
    clearTimeout(timer)
  }
}
