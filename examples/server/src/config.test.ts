import { describe, expect, it } from 'vitest'
import { ConfigError, readConfig } from './config.js'

describe('readConfig', () => {
  it('defaults to 127.0.0.1:3000 and PGlite in .keyward under the working directory', () => {
    expect(readConfig({}, '/srv/app')).toEqual({
      host: '127.0.0.1',
      port: 3000,
      dataDir: '/srv/app/.keyward',
      pgUrl: undefined,
      mysqlUrl: undefined,
      sqlitePath: undefined,
      pgReplicaUrls: [],
      revocationBoundMs: undefined,
      pgListenUrl: undefined,
      pgPreparedStatements: true,
      cache: true,
      keywardSchema: undefined,
      tokenSecret: undefined,
      tokenTtlSeconds: 900,
      failedAuthPerMinute: 100,
      redisUrl: undefined,
      trustedProxy: undefined,
      secretScanningKeysUrl: undefined,
      webhooksAllowHttp: false,
      webhooksAllowPrivate: false,
      webhooksExpiringDays: [7, 1],
      consoleIdleMinutes: 30,
      shutdownTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      connectionsPerAddress: 256,
      maxApiKeyLifetimeDays: undefined,
      verifyTokens: [],
      usageFlushSeconds: 5,
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
    })
  })

  it('reads every variable', () => {
    const env = {
      HOST: '0.0.0.0',
      PORT: '0',
      KEYWARD_DATA_DIR: 'data/keys',
      KEYWARD_PG_URL: 'postgres://u@db/keys',
      KEYWARD_PG_REPLICA_URLS: 'postgres://u@replica-1/keys, postgresql://u@replica-2/keys,',
      KEYWARD_REVOCATION_BOUND_MS: '500',
      KEYWARD_PG_SCHEMA: 'keys',
      KEYWARD_PG_LISTEN_URL: 'postgres://u@db-direct/keys',
      KEYWARD_PG_PREPARED_STATEMENTS: 'off',
      KEYWARD_CACHE: 'off',
      KEYWARD_TOKEN_SECRET: 's'.repeat(32),
      KEYWARD_TOKEN_TTL: '60',
      KEYWARD_FAILED_AUTH_PER_MINUTE: '0',
      KEYWARD_REDIS_URL: 'redis://cache:6379/2',
      KEYWARD_FEED_FRESHNESS: 'redis',
      KEYWARD_TRUSTED_PROXY: 'X-Forwarded-For:2',
      KEYWARD_SECRET_SCANNING_KEYS_URL: 'http://127.0.0.1:8080/keys',
      KEYWARD_WEBHOOKS_ALLOW_HTTP: '1',
      KEYWARD_WEBHOOKS_ALLOW_PRIVATE: '1',
      KEYWARD_WEBHOOKS_EXPIRING_DAYS: '14, 3,1',
      KEYWARD_CONSOLE_IDLE_MINUTES: '5',
      KEYWARD_SHUTDOWN_TIMEOUT_MS: '20000',
      KEYWARD_REQUEST_TIMEOUT_MS: '5000',
      KEYWARD_HEADERS_TIMEOUT_MS: '2000',
      KEYWARD_CONNECTIONS_PER_ADDRESS: '0',
      KEYWARD_MAX_CONNECTIONS: '5000',
      KEYWARD_MAX_API_KEY_LIFETIME_DAYS: '90',
      KEYWARD_VERIFY_TOKENS: ` ${'A'.repeat(64)}, ${'0'.repeat(64)},`,
      KEYWARD_USAGE_FLUSH_SECONDS: '2',
      KEYWARD_METRICS_PORT: '9464',
      KEYWARD_METRICS_HOST: '10.0.0.5',
    }
    expect(readConfig(env, '/srv/app')).toEqual({
      host: '0.0.0.0',
      port: 0,
      dataDir: '/srv/app/data/keys',
      pgUrl: 'postgres://u@db/keys',
      mysqlUrl: undefined,
      sqlitePath: undefined,
      pgReplicaUrls: ['postgres://u@replica-1/keys', 'postgresql://u@replica-2/keys'],
      revocationBoundMs: 500,
      pgListenUrl: 'postgres://u@db-direct/keys',
      pgPreparedStatements: false,
      cache: false,
      keywardSchema: 'keys',
      tokenSecret: 's'.repeat(32),
      tokenTtlSeconds: 60,
      secretScanningKeysUrl: 'http://127.0.0.1:8080/keys',
      webhooksAllowHttp: true,
      webhooksAllowPrivate: true,
      webhooksExpiringDays: [14, 3, 1],
      failedAuthPerMinute: 0,
      redisUrl: 'redis://cache:6379/2',
      feedFreshness: 'redis',
      trustedProxy: { header: 'x-forwarded-for', hops: 2 },
      consoleIdleMinutes: 5,
      shutdownTimeoutMs: 20_000,
      requestTimeoutMs: 5000,
      headersTimeoutMs: 2000,
      connectionsPerAddress: 0,
      maxConnections: 5000,
      maxApiKeyLifetimeDays: 90,
      verifyTokens: ['a'.repeat(64), '0'.repeat(64)],
      usageFlushSeconds: 2,
      metricsPort: 9464,
      metricsHost: '10.0.0.5',
    })
    // The headers' bound follows a shorter request bound.
    expect(readConfig({ KEYWARD_REQUEST_TIMEOUT_MS: '4000' }).headersTimeoutMs).toBe(4000)
    expect(() =>
      readConfig({ KEYWARD_REQUEST_TIMEOUT_MS: '4000', KEYWARD_HEADERS_TIMEOUT_MS: '5000' }),
    ).toThrow(new ConfigError('KEYWARD_HEADERS_TIMEOUT_MS must be an integer from 100 to 4000, got "5000".'))
    expect(readConfig({ KEYWARD_CONSOLE_IDLE_MINUTES: 'off' }).consoleIdleMinutes).toBe('off')
    expect(() => readConfig({ KEYWARD_MAX_API_KEY_LIFETIME_DAYS: '3651' })).toThrow(
      'KEYWARD_MAX_API_KEY_LIFETIME_DAYS',
    )
    expect(readConfig({ KEYWARD_TRUSTED_PROXY: 'x-real-ip' }).trustedProxy).toEqual({
      header: 'x-real-ip',
      hops: 1,
    })
    expect(readConfig({ KEYWARD_DATA_DIR: '/var/keyward' }, '/srv/app').dataDir).toBe('/var/keyward')
  })

  it('refuses unusable values, naming the variable and never echoing a secret', () => {
    // A token given where its digest belongs is refused without being repeated.
    const token = 'svc_0123456789abcdefghijklmnopqrstuvwxyz'
    expect(() => readConfig({ KEYWARD_VERIFY_TOKENS: `${'a'.repeat(64)},${token}` })).toThrow(
      new ConfigError(
        'KEYWARD_VERIFY_TOKENS: entry 2 is not a SHA-256 digest (64 hex characters): give the digest of each ' +
          'token, printf %s "$TOKEN" | sha256sum, never the token itself.',
      ),
    )
    expect(() => readConfig({ PORT: '70000' })).toThrow(
      new ConfigError('PORT must be an integer from 0 to 65535, got "70000".'),
    )
    expect(() => readConfig({ PORT: '3e3' })).toThrow(ConfigError)
    expect(() => readConfig({ KEYWARD_TOKEN_TTL: '0' })).toThrow(/^KEYWARD_TOKEN_TTL must be an integer/)
    expect(() => readConfig({ KEYWARD_CONSOLE_IDLE_MINUTES: '0' })).toThrow(
      new ConfigError('KEYWARD_CONSOLE_IDLE_MINUTES must be an integer from 1 to 1440, got "0".'),
    )
    expect(readConfig({ KEYWARD_WEBHOOKS_EXPIRING_DAYS: 'off' }).webhooksExpiringDays).toBe('off')
    for (const bad of ['0', '31', '7,7', '7;1', '1,2,3,4,5,6', 'seven']) {
      expect(() => readConfig({ KEYWARD_WEBHOOKS_EXPIRING_DAYS: bad })).toThrow(
        new ConfigError(
          `KEYWARD_WEBHOOKS_EXPIRING_DAYS must be up to 5 distinct days from 1 to 30, comma-separated (e.g. 7,1), or off; got ${JSON.stringify(bad)}.`,
        ),
      )
    }
    expect(() => readConfig({ KEYWARD_CACHE: 'yes' })).toThrow(
      new ConfigError('KEYWARD_CACHE must be on or off, got "yes".'),
    )
    expect(() => readConfig({ KEYWARD_SECRET_SCANNING_KEYS_URL: 'keys.json' })).toThrow(
      new ConfigError('KEYWARD_SECRET_SCANNING_KEYS_URL must be an http(s) URL, got "keys.json".'),
    )
    expect(() => readConfig({ KEYWARD_FAILED_AUTH_PER_MINUTE: '-1' })).toThrow(
      /^KEYWARD_FAILED_AUTH_PER_MINUTE must be an integer from 0/,
    )
    expect(() => readConfig({ KEYWARD_TRUSTED_PROXY: 'x-forwarded-for, x-real-ip' })).toThrow(
      /^KEYWARD_TRUSTED_PROXY must be a header name/,
    )
    const secret = 'short-secret-value'
    expect(() => readConfig({ KEYWARD_TOKEN_SECRET: secret })).toThrow(
      new ConfigError('KEYWARD_TOKEN_SECRET must have at least 32 characters, got 18.'),
    )
    expect(() => readConfig({ KEYWARD_PG_REPLICA_URLS: 'postgres://u@replica/keys' })).toThrow(
      new ConfigError('KEYWARD_PG_REPLICA_URLS needs KEYWARD_PG_URL (the primary) to be set too.'),
    )
    const env = { KEYWARD_PG_URL: 'postgres://u@db/keys' }
    expect(() =>
      readConfig({ ...env, KEYWARD_PG_REPLICA_URLS: 'postgres://u@r1/keys,mysql://u:hunter2@r2/keys' }),
    ).toThrow(
      new ConfigError(
        'KEYWARD_PG_REPLICA_URLS: entry 2 has the scheme mysql://, not postgres:// or postgresql://: ' +
          'give URLs such as postgres://user:password@localhost:5432/keys.',
      ),
    )
    expect(readConfig({ ...env, KEYWARD_REVOCATION_BOUND_MS: 'off' }).revocationBoundMs).toBe('off')
    expect(() => readConfig({ ...env, KEYWARD_REVOCATION_BOUND_MS: '0' })).toThrow(
      new ConfigError('KEYWARD_REVOCATION_BOUND_MS must be an integer from 1 to 60000, got "0".'),
    )
    expect(() =>
      readConfig({
        ...env,
        KEYWARD_PG_PREPARED_STATEMENTS: 'off',
        KEYWARD_CACHE: 'off',
        KEYWARD_REVOCATION_BOUND_MS: '250',
      }),
    ).toThrow(/^KEYWARD_PG_PREPARED_STATEMENTS=off \(a transaction pooler\) needs KEYWARD_PG_LISTEN_URL/)
    expect(() => readConfig({ ...env, KEYWARD_PG_PREPARED_STATEMENTS: 'false' })).toThrow(
      new ConfigError('KEYWARD_PG_PREPARED_STATEMENTS must be on or off, got "false".'),
    )
  })

  it('refuses a database or Redis URL of the wrong shape, naming the variable, the fault and a right value', () => {
    const refusal = (env: NodeJS.ProcessEnv) => {
      try {
        readConfig(env)
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError)
        return (error as Error).message
      }
      throw new Error('accepted')
    }
    expect(refusal({ KEYWARD_PG_URL: 'notaurl' })).toBe(
      'KEYWARD_PG_URL is not a URL (it has no scheme such as postgres://): set it to one such as ' +
        'postgres://user:password@localhost:5432/keys.',
    )
    expect(refusal({ KEYWARD_PG_URL: 'mysql://root:hunter2@db/keys' })).toBe(
      'KEYWARD_PG_URL has the scheme mysql://, not postgres:// or postgresql://: set it to one such as ' +
        'postgres://user:password@localhost:5432/keys.',
    )
    expect(refusal({ KEYWARD_PG_URL: 'postgres://u@db/keys', KEYWARD_PG_LISTEN_URL: 'db:5432' })).toMatch(
      /^KEYWARD_PG_LISTEN_URL is not a URL/,
    )
    expect(refusal({ KEYWARD_REDIS_URL: 'localhost:6379' })).toBe(
      'KEYWARD_REDIS_URL is not a URL (it has no scheme such as redis://): set it to one such as redis://127.0.0.1:6379.',
    )
    expect(refusal({ KEYWARD_REDIS_URL: 'http://u:hunter2@cache:6379' })).toBe(
      'KEYWARD_REDIS_URL has the scheme http://, not redis:// or rediss://: set it to one such as redis://127.0.0.1:6379.',
    )
    expect(readConfig({ KEYWARD_REDIS_URL: 'rediss://cache:6380' }).redisUrl).toBe('rediss://cache:6380')
    expect(readConfig({ KEYWARD_PG_URL: 'postgresql://u@db/keys' }).pgUrl).toBe('postgresql://u@db/keys')
  })

  it("takes the change feed's freshness from fences, the beacon or a Redis relay, under strict revocation only", () => {
    const pgUrl = 'postgres://u@db/keys'
    expect(readConfig({ KEYWARD_PG_URL: pgUrl }).feedFreshness).toBeUndefined()
    expect(readConfig({ KEYWARD_PG_URL: pgUrl, KEYWARD_FEED_FRESHNESS: 'beacon' }).feedFreshness).toBe(
      'beacon',
    )
    const relay = {
      KEYWARD_PG_URL: pgUrl,
      KEYWARD_FEED_FRESHNESS: 'redis',
      KEYWARD_REDIS_URL: 'redis://cache:6379',
    }
    expect(readConfig(relay)).toMatchObject({ feedFreshness: 'redis', redisUrl: 'redis://cache:6379' })
    expect(
      readConfig({ ...relay, KEYWARD_CACHE: 'off', KEYWARD_REVOCATION_BOUND_MS: '500' }).feedFreshness,
    ).toBe('redis')
    expect(() => readConfig({ ...relay, KEYWARD_FEED_FRESHNESS: 'gossip' })).toThrow(
      new ConfigError('KEYWARD_FEED_FRESHNESS must be fences, beacon or redis, got "gossip".'),
    )
    expect(() => readConfig({ ...relay, KEYWARD_REDIS_URL: '' })).toThrow(
      new ConfigError(
        'KEYWARD_FEED_FRESHNESS=redis relays the change feed through Redis: set KEYWARD_REDIS_URL too (such as redis://127.0.0.1:6379).',
      ),
    )
    const notStrict =
      'KEYWARD_FEED_FRESHNESS=redis is for strict revocation on PostgreSQL: it needs KEYWARD_PG_URL, and ' +
      'KEYWARD_REVOCATION_BOUND_MS not off (with KEYWARD_CACHE=off and no replicas, set a bound).'
    expect(() => readConfig({ ...relay, KEYWARD_REVOCATION_BOUND_MS: 'off' })).toThrow(
      new ConfigError(notStrict),
    )
    expect(() => readConfig({ ...relay, KEYWARD_CACHE: 'off' })).toThrow(new ConfigError(notStrict))
    expect(() => readConfig({ ...relay, KEYWARD_PG_URL: '' })).toThrow(new ConfigError(notStrict))
  })

  it('runs on MySQL or SQLite instead of PGlite, refusing a second database and the settings of PostgreSQL', () => {
    const mysql = { KEYWARD_MYSQL_URL: 'mysql://keys:hunter2@db:3306/keys' }
    expect(readConfig(mysql)).toMatchObject({ mysqlUrl: mysql.KEYWARD_MYSQL_URL, pgUrl: undefined })
    expect(readConfig({ KEYWARD_SQLITE_PATH: 'data/keys.db' }, '/srv/app').sqlitePath).toBe(
      '/srv/app/data/keys.db',
    )
    expect(() => readConfig({ ...mysql, KEYWARD_PG_URL: 'postgres://u@db/keys' })).toThrow(
      new ConfigError(
        'KEYWARD_PG_URL and KEYWARD_MYSQL_URL are set together: the data is in one database, so set one of them (or none, for PGlite in KEYWARD_DATA_DIR).',
      ),
    )
    expect(() => readConfig({ ...mysql, KEYWARD_SQLITE_PATH: 'keys.db' })).toThrow(
      /^KEYWARD_MYSQL_URL and KEYWARD_SQLITE_PATH are set together/,
    )
    expect(() => readConfig({ KEYWARD_SQLITE_PATH: 'keys.db', KEYWARD_DATA_DIR: '.keyward' })).toThrow(
      new ConfigError(
        'KEYWARD_DATA_DIR is a setting of PostgreSQL (or PGlite), not of SQLite (KEYWARD_SQLITE_PATH): unset it.',
      ),
    )
    expect(() =>
      readConfig({ ...mysql, KEYWARD_PG_LISTEN_URL: 'postgres://u@db/keys', KEYWARD_PG_SCHEMA: 'keys' }),
    ).toThrow(
      new ConfigError(
        'KEYWARD_PG_LISTEN_URL, KEYWARD_PG_SCHEMA are settings of PostgreSQL (or PGlite), not of MySQL (KEYWARD_MYSQL_URL): unset them.',
      ),
    )
    expect(() => readConfig({ KEYWARD_SQLITE_PATH: 'keys.db', KEYWARD_REVOCATION_BOUND_MS: '500' })).toThrow(
      /^KEYWARD_REVOCATION_BOUND_MS is for PostgreSQL and MySQL: on SQLite one process holds the data/,
    )
    expect(readConfig({ ...mysql, KEYWARD_REVOCATION_BOUND_MS: '800' }).revocationBoundMs).toBe(800)
    expect(() => readConfig({ ...mysql, KEYWARD_REVOCATION_BOUND_MS: '100' })).toThrow(
      new ConfigError(
        'KEYWARD_REVOCATION_BOUND_MS on MySQL must exceed 100, how often the change feed reads the change log; got "100".',
      ),
    )
    // The URL's shape is checked, and the URL (with its password) never echoed.
    for (const url of ['postgres://keys:hunter2@db/keys', 'mysql://keys:hunter2@db:port/keys']) {
      expect(() => readConfig({ KEYWARD_MYSQL_URL: url })).toThrow(/^KEYWARD_MYSQL_URL (?!.*hunter2)/)
    }
  })

  it('behind a transaction pooler (prepared statements off), asks for a direct URL for the change feed', () => {
    const pooled = { KEYWARD_PG_URL: 'postgres://u@pooler/keys', KEYWARD_PG_PREPARED_STATEMENTS: 'off' }
    expect(() => readConfig(pooled)).toThrow(
      new ConfigError(
        'KEYWARD_PG_PREPARED_STATEMENTS=off (a transaction pooler) needs KEYWARD_PG_LISTEN_URL, a direct ' +
          'connection to the primary for the change feed, or KEYWARD_CACHE=off.',
      ),
    )
    expect(readConfig({ ...pooled, KEYWARD_CACHE: 'off' })).toMatchObject({ pgPreparedStatements: false })
    const direct = 'postgres://u@db/keys'
    expect(readConfig({ ...pooled, KEYWARD_PG_LISTEN_URL: direct })).toMatchObject({
      pgUrl: 'postgres://u@pooler/keys',
      pgListenUrl: direct,
      pgPreparedStatements: false,
      cache: true,
    })
  })
})
