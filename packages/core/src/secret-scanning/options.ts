import type { PublicKeySourceOptions, SecretScanningFetch } from './public-keys.js'
import { GITHUB_SECRET_SCANNING_KEYS_URL } from './public-keys.js'

/** Options of `createSecretScanningRoute` (and of the adapters' `secretScanning`). Checked once, when the route is built. */
export interface SecretScanningOptions {
  /** The sender's public-keys document. Default GitHub's, {@link GITHUB_SECRET_SCANNING_KEYS_URL}. */
  readonly keysUrl?: string
  /**
   * Headers sent with the keys request: an `authorization` token, say, which keeps an
   * unauthenticated client clear of the sender's rate limit. Default none.
   */
  readonly keysRequestHeaders?: Readonly<Record<string, string>>
  /** The `fetch` that reads the keys document. Default the platform's `fetch`. */
  readonly fetch?: SecretScanningFetch
  /**
   * How the feedback names each token: `token_hash` (SHA-256 hex, the default) or
   * `token_raw` (the token as sent back to its sender).
   */
  readonly feedback?: 'token_hash' | 'token_raw'
  /** The largest alert read, in bytes. Default 1 MiB (some 5,000 matches). */
  readonly bodyLimit?: number
  /** The least time between two fetches of the keys document, in ms. Default 60,000. */
  readonly refetchIntervalMs?: number
  /** How long fetched keys are used before they are fetched again, in ms. Default one hour. */
  readonly keysMaxAgeMs?: number
  /** Bound on one fetch of the keys document, in ms. Default 5,000. */
  readonly keysTimeoutMs?: number
  /** The clock, in ms, for tests. Default `Date.now`. */
  readonly now?: () => number
}

/** @internal The options with their defaults, after the checks. */
export interface SecretScanningSettings extends PublicKeySourceOptions {
  readonly feedback: 'token_hash' | 'token_raw'
  readonly bodyLimit: number
}

const positive = (name: string, value: number | undefined, fallback: number): number => {
  if (value === undefined) return fallback
  if (!(Number.isInteger(value) && value > 0)) {
    throw new TypeError(
      `secretScanning: option \`${name}\` must be a positive integer, got ${String(value)}.`,
    )
  }
  return value
}

/** @internal Checks the options once and fills in the defaults. */
export function checkSecretScanningOptions(options: SecretScanningOptions): SecretScanningSettings {
  const url = options.keysUrl ?? GITHUB_SECRET_SCANNING_KEYS_URL
  if (typeof url !== 'string' || !/^https?:\/\/\S+$/.test(url)) {
    throw new TypeError(
      `secretScanning: option \`keysUrl\` must be an http(s) URL, got ${JSON.stringify(url)}.`,
    )
  }
  const feedback = options.feedback ?? 'token_hash'
  if (feedback !== 'token_hash' && feedback !== 'token_raw') {
    throw new TypeError(
      `secretScanning: option \`feedback\` must be 'token_hash' or 'token_raw', got ${JSON.stringify(feedback)}.`,
    )
  }
  for (const name of ['fetch', 'now'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') {
      throw new TypeError(`secretScanning: option \`${name}\` must be a function.`)
    }
  }
  return {
    url,
    feedback,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    headers: { ...options.keysRequestHeaders },
    now: options.now ?? Date.now,
    bodyLimit: positive('bodyLimit', options.bodyLimit, 1024 * 1024),
    refetchIntervalMs: positive('refetchIntervalMs', options.refetchIntervalMs, 60_000),
    maxAgeMs: positive('keysMaxAgeMs', options.keysMaxAgeMs, 60 * 60 * 1000),
    timeoutMs: positive('keysTimeoutMs', options.keysTimeoutMs, 5000),
  }
}
