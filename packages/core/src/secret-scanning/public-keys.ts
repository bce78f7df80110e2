import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { importVerifyKey, type VerifyKey } from './signature.js'

/**
 * Where GitHub publishes the public keys that sign its secret-scanning alerts: the default
 * `keysUrl` of the secret-scanning route.
 *
 * @example
 * ```ts
 * createSecretScanningRoute(keyward, { keysUrl: process.env.KEYS_URL ?? GITHUB_SECRET_SCANNING_KEYS_URL })
 * ```
 */
export const GITHUB_SECRET_SCANNING_KEYS_URL = 'https://api.github.com/meta/public_keys/secret_scanning'

/** The `fetch` that {@link SecretScanningOptions} can replace: as much of it as Keyward calls. */
export type SecretScanningFetch = (
  url: string,
  init: { headers: Record<string, string>; signal?: unknown },
) => Promise<{ readonly ok: boolean; readonly status: number; json(): Promise<unknown> }>

/** @internal Options of {@link publicKeySource}, checked by the route's options. */
export interface PublicKeySourceOptions {
  readonly url: string
  readonly fetch: SecretScanningFetch
  readonly headers: Readonly<Record<string, string>>
  readonly refetchIntervalMs: number
  readonly maxAgeMs: number
  readonly timeoutMs: number
  readonly now: () => number
}

type KeyTable = ReadonlyMap<string, VerifyKey>

const unavailable = (why: string, cause?: unknown) =>
  new KeywardError(
    ErrorType.signingKeysUnavailable,
    `The sender's public keys could not be read (${why}). Try again later.`,
    [],
    cause === undefined ? {} : { cause },
  )

/** Imports every usable key of a public-keys document: `{"public_keys":[{"key_identifier","key","is_current"}]}`. */
async function readDocument(document: unknown): Promise<KeyTable> {
  const entries = (document as { public_keys?: unknown } | null)?.public_keys
  if (!Array.isArray(entries)) throw unavailable('the document has no public_keys array')
  const table = new Map<string, VerifyKey>()
  // Keys that are no longer current still sign alerts during a rotation: all of them count.
  for (const entry of entries as Array<{ key_identifier?: unknown; key?: unknown } | null>) {
    const id = entry?.key_identifier
    const pem = entry?.key
    if (typeof id !== 'string' || typeof pem !== 'string') continue
    const key = await importVerifyKey(pem).catch(() => null)
    if (key) table.set(id, key)
  }
  if (table.size === 0) throw unavailable('the document holds no usable P-256 key')
  return table
}

/**
 * @internal The sender's public keys by identifier: fetched on first use, kept, fetched again
 * when an unknown identifier arrives or the keys are older than `maxAgeMs`, but never more
 * than once per `refetchIntervalMs`. While a fetch fails, the keys fetched before stay in use;
 * with none, lookups throw 503 `signing_keys_unavailable`.
 */
export function publicKeySource(options: PublicKeySourceOptions) {
  let keys: KeyTable | null = null
  let fetchedAt = Number.NEGATIVE_INFINITY
  let attemptedAt = Number.NEGATIVE_INFINITY
  let lastError: KeywardError = unavailable('not fetched yet')
  let inflight: Promise<void> | null = null

  async function fetchKeys(): Promise<void> {
    attemptedAt = options.now()
    try {
      const response = await options.fetch(options.url, {
        headers: { accept: 'application/json', ...options.headers },
        signal: AbortSignal.timeout(options.timeoutMs),
      })
      if (!response.ok) throw unavailable(`HTTP ${response.status}`)
      keys = await readDocument(await response.json())
      fetchedAt = options.now()
    } catch (error) {
      lastError = error instanceof KeywardError ? error : unavailable('the request failed', error)
    }
  }

  function refresh(): Promise<void> {
    inflight ??= fetchKeys().finally(() => {
      inflight = null
    })
    return inflight
  }

  return {
    /** The key with this identifier, or `null` when the sender publishes none. */
    async key(identifier: string): Promise<VerifyKey | null> {
      const now = options.now()
      const wanted = keys === null || !keys.has(identifier) || now - fetchedAt >= options.maxAgeMs
      if (wanted && (inflight || now - attemptedAt >= options.refetchIntervalMs)) await refresh()
      if (keys === null) throw lastError
      return keys.get(identifier) ?? null
    },
  }
}
