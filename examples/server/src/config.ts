import { resolve } from 'node:path'
import { PROTECTION_DEFAULTS, type TrustedProxy } from '@keyward/core'
import { connectionStringProblem, PG_URL_EXAMPLE } from '@keyward/postgres'

/** What the server reads from its environment, checked once at start. */
export interface ServerConfig {
  /** `HOST`: the address to listen on. Default `127.0.0.1`. */
  readonly host: string
  /** `PORT`: the port to listen on, `0` for any free one. Default `3000`. */
  readonly port: number
  /** `KEYWARD_DATA_DIR`, resolved against the working directory: PGlite's data. Default `.keyward`. */
  readonly dataDir: string
  /** `KEYWARD_PG_URL`: PostgreSQL instead of PGlite when set. */
  readonly pgUrl: string | undefined
  /**
   * `KEYWARD_MYSQL_URL`: MySQL or MariaDB (`mysql://` or `mariadb://`) instead of PGlite when set;
   * exclusive with `KEYWARD_PG_URL` and `KEYWARD_SQLITE_PATH`.
   */
  readonly mysqlUrl: string | undefined
  /**
   * `KEYWARD_SQLITE_PATH`, resolved against the working directory: a SQLite file (made when
   * missing, held by this process) instead of PGlite when set; exclusive with the other two.
   */
  readonly sqlitePath: string | undefined
  /**
   * `KEYWARD_PG_REPLICA_URLS`: streaming standbys of `KEYWARD_PG_URL` for key lookups,
   * comma-separated. Default none.
   */
  readonly pgReplicaUrls: readonly string[]
  /**
   * `KEYWARD_REVOCATION_BOUND_MS`: strict revocation's bound in milliseconds (a revocation is
   * refused by every process once acknowledged, a bound after its commit), or `off`. Default
   * (`undefined` here): 250 with the cache or replicas, off with neither.
   */
  readonly revocationBoundMs: number | 'off' | undefined
  /**
   * `KEYWARD_PG_LISTEN_URL`: where the change feed listens, a direct connection to the primary
   * (LISTEN needs a session: not through a transaction pooler). Default `KEYWARD_PG_URL`.
   */
  readonly pgListenUrl: string | undefined
  /**
   * `KEYWARD_PG_PREPARED_STATEMENTS`: `on` (default) runs lookups as named prepared statements;
   * `off` behind a transaction pooler (PgBouncer in transaction mode, ...), which then needs
   * `KEYWARD_PG_LISTEN_URL` for the change feed (or `KEYWARD_CACHE=off`).
   */
  readonly pgPreparedStatements: boolean
  /** `KEYWARD_CACHE`: `on` (default) keeps verifications in memory, revoked through the change feed; `off`. */
  readonly cache: boolean
  /** `KEYWARD_PG_SCHEMA`: the SQL schema of Keyward's tables, in either database. Default `keyward`. */
  readonly keywardSchema: string | undefined
  /** `KEYWARD_TOKEN_SECRET`: the access tokens' signing secret; else one kept in the database. */
  readonly tokenSecret: string | undefined
  /** `KEYWARD_TOKEN_TTL`: the access tokens' lifetime in seconds. Default 900. */
  readonly tokenTtlSeconds: number
  /**
   * `KEYWARD_FAILED_AUTH_PER_MINUTE`: failed verifications allowed per client address and
   * minute before the address is answered 429. Default 100; `0` turns throttling off.
   */
  readonly failedAuthPerMinute: number
  /**
   * `KEYWARD_REDIS_URL`: the throttle's counters in Redis, shared by all processes, when set (and
   * the change feed's relay with `KEYWARD_FEED_FRESHNESS=redis`).
   */
  readonly redisUrl: string | undefined
  /**
   * `KEYWARD_FEED_FRESHNESS`: where strict revocation's change feed takes its evidence of
   * freshness on PostgreSQL: `fences` (each process, the default), `beacon` (one beacon for the
   * database) or `redis` (a relay through `KEYWARD_REDIS_URL`: one process listens on the primary,
   * the others need no connection of their own for the feed).
   */
  readonly feedFreshness: 'fences' | 'beacon' | 'redis' | undefined
  /**
   * `KEYWARD_TRUSTED_PROXY`: `header` or `header:hops` (e.g. `x-forwarded-for:1`): the client
   * address is read from that header, as written by that many proxies. Unset: the socket's address.
   */
  readonly trustedProxy: TrustedProxy | undefined
  /**
   * `KEYWARD_SECRET_SCANNING_KEYS_URL`: the public keys that sign secret-scanning alerts.
   * Default GitHub's (`undefined` here).
   */
  readonly secretScanningKeysUrl: string | undefined
  /**
   * `KEYWARD_WEBHOOKS_ALLOW_HTTP=1`: webhook endpoints may be `http://` (development and tests).
   * Default: `https://` only.
   */
  readonly webhooksAllowHttp: boolean
  /**
   * `KEYWARD_WEBHOOKS_ALLOW_PRIVATE=1`: webhook endpoints may resolve to loopback and private
   * addresses (development and tests). Link-local and metadata addresses stay refused. Default off.
   */
  readonly webhooksAllowPrivate: boolean
  /**
   * `KEYWARD_WEBHOOKS_EXPIRING_DAYS`: how many days before its expiry a key's `key.expiring` is
   * sent, a comma-separated list of 1 to 30 (default `7,1`), or `off` for neither `key.expiring`
   * nor `key.expired`.
   */
  readonly webhooksExpiringDays: readonly number[] | 'off'
  /**
   * `KEYWARD_CONSOLE_IDLE_MINUTES`: the administrative console at `/console`, with sessions that end
   * after this many minutes without a request (default 30), or `off` for no console.
   */
  readonly consoleIdleMinutes: number | 'off'
  /**
   * `KEYWARD_SHUTDOWN_TIMEOUT_MS`: on SIGTERM or SIGINT, how long requests in flight may take
   * to finish and the database to close before the process exits anyway (with code 1). Default 10000.
   */
  readonly shutdownTimeoutMs: number
  /** `KEYWARD_REQUEST_TIMEOUT_MS`: the longest a client may take to send a whole request. Default 30000. */
  readonly requestTimeoutMs: number
  /** `KEYWARD_HEADERS_TIMEOUT_MS`: the longest a client may take to send a request's headers. Default 10000. */
  readonly headersTimeoutMs: number
  /**
   * `KEYWARD_CONNECTIONS_PER_ADDRESS`: the most connections open at once from one client
   * address (the socket's); `0` for no cap. Default 256.
   */
  readonly connectionsPerAddress: number
  /**
   * `KEYWARD_MAX_CONNECTIONS`: the most connections open at once in all; past it the oldest idle
   * connection is closed to make room. `0` for no bound. Unset: 90% of the process's limit of open
   * file descriptors (read at start on Linux; no bound where it cannot be read).
   */
  readonly maxConnections: number | undefined
  /**
   * `KEYWARD_MAX_API_KEY_LIFETIME_DAYS`: the longest an API key may live, 1 to 3650 days; a key
   * created without an expiry gets it, a longer one is refused (422 `lifetime_exceeded`). Unset: none.
   */
  readonly maxApiKeyLifetimeDays: number | undefined
  /**
   * `KEYWARD_VERIFY_TOKENS`: the SHA-256 digests (hex, comma-separated) of the service tokens that
   * may call `POST /api/v1/keys/verify` as `Authorization: Bearer <token>`, for keys of any
   * project. Unset: none (developer keys verify keys of their own projects).
   */
  readonly verifyTokens: readonly string[]
  /**
   * `KEYWARD_USAGE_FLUSH_SECONDS`: how often the usage counts held in memory are written, 1 to 60
   * seconds; what a crash (kill -9) can lose. Default 5.
   */
  readonly usageFlushSeconds: number
  /**
   * `KEYWARD_METRICS_PORT`: Prometheus metrics at `GET /metrics` on this port, on `HOST`, apart
   * from the API (so that it is not public with it). Unset: no metrics.
   */
  readonly metricsPort: number | undefined
  /** `KEYWARD_METRICS_HOST`: the address the metrics listen on. Default `127.0.0.1`. */
  readonly metricsHost: string
}

/** The least length of `KEYWARD_TOKEN_SECRET`: HS256 wants a key of at least 256 bits. */
export const MIN_TOKEN_SECRET_LENGTH = 32
const MAX_TOKEN_TTL_SECONDS = 24 * 60 * 60

/** A setting that cannot be used; its message names the variable, never a secret's value. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
}

function integerSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number) {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}.`)
  }
  return value
}

/** A PostgreSQL URL setting, checked for its shape; a URL is never echoed (it may hold a password). */
function pgUrlSetting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const url = env[name] || undefined
  const problem = url === undefined ? undefined : connectionStringProblem(url)
  if (problem) throw new ConfigError(`${name} ${problem}: set it to one such as ${PG_URL_EXAMPLE}.`)
  return url
}

// The settings that only PostgreSQL (or PGlite) has.
const POSTGRES_ONLY = [
  'KEYWARD_DATA_DIR',
  'KEYWARD_PG_REPLICA_URLS',
  'KEYWARD_PG_LISTEN_URL',
  'KEYWARD_PG_PREPARED_STATEMENTS',
  'KEYWARD_PG_SCHEMA',
  'KEYWARD_FEED_FRESHNESS',
] as const

// The change feed of the MySQL store reads its change log this often (its default).
const MYSQL_POLL_MS = 100

/**
 * Which database holds the data: at most one of `KEYWARD_PG_URL`, `KEYWARD_MYSQL_URL` and
 * `KEYWARD_SQLITE_PATH` (none: PGlite). The settings of PostgreSQL are refused with the other two,
 * and so is a revocation bound on SQLite (one process holds the data: no change feed) or one
 * MySQL's change feed cannot keep.
 */
function checkDatabase(env: NodeJS.ProcessEnv): void {
  const chosen = ['KEYWARD_PG_URL', 'KEYWARD_MYSQL_URL', 'KEYWARD_SQLITE_PATH'].filter((name) => env[name])
  if (chosen.length > 1) {
    throw new ConfigError(
      `${chosen.join(' and ')} are set together: the data is in one database, so set one of them (or none, for PGlite in KEYWARD_DATA_DIR).`,
    )
  }
  const [other] = chosen.filter((name) => name !== 'KEYWARD_PG_URL')
  if (other === undefined) return
  const store = other === 'KEYWARD_MYSQL_URL' ? 'MySQL' : 'SQLite'
  const postgresOnly = POSTGRES_ONLY.filter((name) => env[name])
  if (postgresOnly.length > 0) {
    throw new ConfigError(
      `${postgresOnly.join(', ')} ${postgresOnly.length > 1 ? 'are settings' : 'is a setting'} of PostgreSQL (or PGlite), not of ${store} (${other}): unset ${postgresOnly.length > 1 ? 'them' : 'it'}.`,
    )
  }
  const bound = env.KEYWARD_REVOCATION_BOUND_MS
  if (bound && bound !== 'off' && store === 'SQLite') {
    throw new ConfigError(
      'KEYWARD_REVOCATION_BOUND_MS is for PostgreSQL and MySQL: on SQLite one process holds the data and every revocation is refused once it answers. Unset it.',
    )
  }
  if (bound && bound !== 'off' && Number(bound) <= MYSQL_POLL_MS) {
    throw new ConfigError(
      `KEYWARD_REVOCATION_BOUND_MS on MySQL must exceed ${MYSQL_POLL_MS}, how often the change feed reads the change log; got ${JSON.stringify(bound)}.`,
    )
  }
}

const REDIS_URL_EXAMPLE = 'redis://127.0.0.1:6379'
const MYSQL_URL_EXAMPLE = 'mysql://user:password@127.0.0.1:3306/keys'

/**
 * A URL setting of one of `schemes` (e.g. `redis`, `rediss`), checked for its shape; a URL is
 * never echoed (it may hold a password).
 */
function urlSetting(
  env: NodeJS.ProcessEnv,
  name: string,
  schemes: readonly [string, string],
  example: string,
): string | undefined {
  const url = env[name] || undefined
  if (url === undefined) return undefined
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase()
  const problem =
    scheme === undefined
      ? `is not a URL (it has no scheme such as ${schemes[0]}://)`
      : !schemes.includes(scheme)
        ? `has the scheme ${scheme}://, not ${schemes[0]}:// or ${schemes[1]}://`
        : URL.canParse(url)
          ? undefined
          : 'is not a valid URL'
  if (problem) throw new ConfigError(`${name} ${problem}: set it to one such as ${example}.`)
  return url
}

/** The replica URLs of `KEYWARD_PG_REPLICA_URLS`; a URL is never echoed (it may hold a password). */
function replicaUrls(env: NodeJS.ProcessEnv, pgUrl: string | undefined): string[] {
  const urls = (env.KEYWARD_PG_REPLICA_URLS ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '')
  if (urls.length > 0 && pgUrl === undefined) {
    throw new ConfigError('KEYWARD_PG_REPLICA_URLS needs KEYWARD_PG_URL (the primary) to be set too.')
  }
  urls.forEach((url, i) => {
    const problem = connectionStringProblem(url)
    if (problem) {
      throw new ConfigError(
        `KEYWARD_PG_REPLICA_URLS: entry ${i + 1} ${problem}: give URLs such as ${PG_URL_EXAMPLE}.`,
      )
    }
  })
  return urls
}

const FRESHNESS_SOURCES = ['fences', 'beacon', 'redis'] as const

/** `KEYWARD_FEED_FRESHNESS`: one of {@link FRESHNESS_SOURCES}, or unset. */
function feedFreshnessSetting(env: NodeJS.ProcessEnv): ServerConfig['feedFreshness'] {
  const raw = env.KEYWARD_FEED_FRESHNESS
  if (raw === undefined || raw === '') return undefined
  const found = FRESHNESS_SOURCES.find((source) => source === raw)
  if (!found) {
    throw new ConfigError(
      `KEYWARD_FEED_FRESHNESS must be fences, beacon or redis, got ${JSON.stringify(raw)}.`,
    )
  }
  return found
}

/** `KEYWARD_REVOCATION_BOUND_MS`: the bound, `off`, or unset. */
function revocationBound(env: NodeJS.ProcessEnv): number | 'off' | undefined {
  const raw = env.KEYWARD_REVOCATION_BOUND_MS
  if (raw === undefined || raw === '') return undefined
  if (raw === 'off') return 'off'
  return integerSetting(env, 'KEYWARD_REVOCATION_BOUND_MS', 0, 1, 60_000)
}

function switchSetting(env: NodeJS.ProcessEnv, name: string, fallback: boolean) {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (raw === 'on' || raw === 'off') return raw === 'on'
  throw new ConfigError(`${name} must be on or off, got ${JSON.stringify(raw)}.`)
}

// A development switch: `1` on, unset or `0` off.
function flagSetting(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name]
  if (raw === undefined || raw === '' || raw === '0') return false
  if (raw === '1') return true
  throw new ConfigError(`${name} must be 1 or 0, got ${JSON.stringify(raw)}.`)
}

const EXPIRING_DAYS = 'KEYWARD_WEBHOOKS_EXPIRING_DAYS'

// Days before expiry: distinct whole numbers from 1 to 30, or `off`.
function expiringDaysSetting(env: NodeJS.ProcessEnv): readonly number[] | 'off' {
  const raw = env[EXPIRING_DAYS]
  if (raw === undefined || raw === '') return [7, 1]
  if (raw === 'off') return 'off'
  const days = raw.split(',').map((part) => part.trim())
  const valid = days.every((day) => /^\d{1,2}$/.test(day) && Number(day) >= 1 && Number(day) <= 30)
  if (!valid || new Set(days.map(Number)).size !== days.length || days.length > 5) {
    throw new ConfigError(
      `${EXPIRING_DAYS} must be up to 5 distinct days from 1 to 30, comma-separated (e.g. 7,1), or off; got ${JSON.stringify(raw)}.`,
    )
  }
  return days.map(Number)
}

function trustedProxySetting(env: NodeJS.ProcessEnv): TrustedProxy | undefined {
  const raw = env.KEYWARD_TRUSTED_PROXY
  if (raw === undefined || raw === '') return undefined
  const match = /^([a-z0-9-]+)(?::([1-9]\d?))?$/.exec(raw.trim().toLowerCase())
  if (!match) {
    throw new ConfigError(
      `KEYWARD_TRUSTED_PROXY must be a header name with an optional hop count, e.g. x-forwarded-for:1, got ${JSON.stringify(raw)}.`,
    )
  }
  return { header: match[1]!, hops: Number(match[2] ?? 1) }
}

const SHA256_HEX = /^[0-9a-f]{64}$/

/** `KEYWARD_VERIFY_TOKENS`: digests, never tokens (a token given by mistake is not echoed). */
function verifyTokensSetting(env: NodeJS.ProcessEnv): string[] {
  const digests = (env.KEYWARD_VERIFY_TOKENS ?? '')
    .split(',')
    .map((digest) => digest.trim().toLowerCase())
    .filter((digest) => digest !== '')
  digests.forEach((digest, i) => {
    if (!SHA256_HEX.test(digest)) {
      throw new ConfigError(
        `KEYWARD_VERIFY_TOKENS: entry ${i + 1} is not a SHA-256 digest (64 hex characters): give the ` +
          'digest of each token, printf %s "$TOKEN" | sha256sum, never the token itself.',
      )
    }
  })
  return digests
}

/** Reads and checks the server's settings. Throws a {@link ConfigError} that names the variable. */
export function readConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ServerConfig {
  const tokenSecret = env.KEYWARD_TOKEN_SECRET || undefined
  if (tokenSecret !== undefined && tokenSecret.length < MIN_TOKEN_SECRET_LENGTH) {
    throw new ConfigError(
      `KEYWARD_TOKEN_SECRET must have at least ${MIN_TOKEN_SECRET_LENGTH} characters, got ${tokenSecret.length}.`,
    )
  }
  checkDatabase(env)
  const pgUrl = pgUrlSetting(env, 'KEYWARD_PG_URL')
  const mysqlUrl = urlSetting(env, 'KEYWARD_MYSQL_URL', ['mysql', 'mariadb'], MYSQL_URL_EXAMPLE)
  const secretScanningKeysUrl = env.KEYWARD_SECRET_SCANNING_KEYS_URL || undefined
  if (secretScanningKeysUrl !== undefined && !/^https?:\/\/\S+$/.test(secretScanningKeysUrl)) {
    throw new ConfigError(
      `KEYWARD_SECRET_SCANNING_KEYS_URL must be an http(s) URL, got ${JSON.stringify(secretScanningKeysUrl)}.`,
    )
  }
  const pgListenUrl = pgUrlSetting(env, 'KEYWARD_PG_LISTEN_URL')
  const pgPreparedStatements = switchSetting(env, 'KEYWARD_PG_PREPARED_STATEMENTS', true)
  const cache = switchSetting(env, 'KEYWARD_CACHE', true)
  const pgReplicaUrls = replicaUrls(env, pgUrl)
  const revocationBoundMs = revocationBound(env)
  const strict = typeof revocationBoundMs === 'number'
  // The change feed LISTENs: through a transaction pooler the notifications would go astray.
  if (pgUrl && !pgPreparedStatements && !pgListenUrl && (cache || pgReplicaUrls.length > 0 || strict)) {
    throw new ConfigError(
      'KEYWARD_PG_PREPARED_STATEMENTS=off (a transaction pooler) needs KEYWARD_PG_LISTEN_URL, a direct ' +
        'connection to the primary for the change feed, or KEYWARD_CACHE=off.',
    )
  }
  const feedFreshness = feedFreshnessSetting(env)
  const redisUrl = urlSetting(env, 'KEYWARD_REDIS_URL', ['redis', 'rediss'], REDIS_URL_EXAMPLE)
  if (feedFreshness !== undefined) {
    // The same default as the store's: strict revocation with the cache or replicas, or a bound.
    const strictOn = revocationBoundMs === undefined ? cache || pgReplicaUrls.length > 0 : strict
    if (!pgUrl || !strictOn) {
      throw new ConfigError(
        `KEYWARD_FEED_FRESHNESS=${feedFreshness} is for strict revocation on PostgreSQL: it needs ` +
          'KEYWARD_PG_URL, and KEYWARD_REVOCATION_BOUND_MS not off (with KEYWARD_CACHE=off and no ' +
          'replicas, set a bound).',
      )
    }
    if (feedFreshness === 'redis' && redisUrl === undefined) {
      throw new ConfigError(
        `KEYWARD_FEED_FRESHNESS=redis relays the change feed through Redis: set KEYWARD_REDIS_URL too (such as ${REDIS_URL_EXAMPLE}).`,
      )
    }
  }
  const requestTimeoutMs = integerSetting(env, 'KEYWARD_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000)
  return {
    host: env.HOST || '127.0.0.1',
    port: integerSetting(env, 'PORT', 3000, 0, 65535),
    dataDir: resolve(cwd, env.KEYWARD_DATA_DIR || '.keyward'),
    pgUrl,
    mysqlUrl,
    sqlitePath: env.KEYWARD_SQLITE_PATH ? resolve(cwd, env.KEYWARD_SQLITE_PATH) : undefined,
    pgReplicaUrls,
    revocationBoundMs,
    pgListenUrl,
    pgPreparedStatements,
    cache,
    keywardSchema: env.KEYWARD_PG_SCHEMA || undefined,
    tokenSecret,
    tokenTtlSeconds: integerSetting(env, 'KEYWARD_TOKEN_TTL', 900, 1, MAX_TOKEN_TTL_SECONDS),
    failedAuthPerMinute: integerSetting(
      env,
      'KEYWARD_FAILED_AUTH_PER_MINUTE',
      PROTECTION_DEFAULTS.failedAuthLimit,
      0,
      1_000_000,
    ),
    redisUrl,
    feedFreshness,
    trustedProxy: trustedProxySetting(env),
    secretScanningKeysUrl,
    webhooksAllowHttp: flagSetting(env, 'KEYWARD_WEBHOOKS_ALLOW_HTTP'),
    webhooksAllowPrivate: flagSetting(env, 'KEYWARD_WEBHOOKS_ALLOW_PRIVATE'),
    webhooksExpiringDays: expiringDaysSetting(env),
    consoleIdleMinutes:
      env.KEYWARD_CONSOLE_IDLE_MINUTES === 'off'
        ? 'off'
        : integerSetting(env, 'KEYWARD_CONSOLE_IDLE_MINUTES', 30, 1, 24 * 60),
    shutdownTimeoutMs: integerSetting(env, 'KEYWARD_SHUTDOWN_TIMEOUT_MS', 10_000, 100, 600_000),
    requestTimeoutMs,
    // Node wants the headers' bound within the request's.
    headersTimeoutMs: integerSetting(
      env,
      'KEYWARD_HEADERS_TIMEOUT_MS',
      Math.min(10_000, requestTimeoutMs),
      100,
      requestTimeoutMs,
    ),
    connectionsPerAddress: integerSetting(env, 'KEYWARD_CONNECTIONS_PER_ADDRESS', 256, 0, 1_000_000),
    maxConnections: env.KEYWARD_MAX_CONNECTIONS
      ? integerSetting(env, 'KEYWARD_MAX_CONNECTIONS', 0, 0, 10_000_000)
      : undefined,
    usageFlushSeconds: integerSetting(env, 'KEYWARD_USAGE_FLUSH_SECONDS', 5, 1, 60),
    metricsPort: env.KEYWARD_METRICS_PORT
      ? integerSetting(env, 'KEYWARD_METRICS_PORT', 0, 0, 65535)
      : undefined,
    metricsHost: env.KEYWARD_METRICS_HOST || '127.0.0.1',
    maxApiKeyLifetimeDays: env.KEYWARD_MAX_API_KEY_LIFETIME_DAYS
      ? integerSetting(env, 'KEYWARD_MAX_API_KEY_LIFETIME_DAYS', 0, 1, 3650)
      : undefined,
    verifyTokens: verifyTokensSetting(env),
  }
}
