// What is wrong with a PostgreSQL connection string, told before any connection is tried:
// node-postgres reads anything that is not a URL as a path under a dummy host ("notaurl"
// becomes a connection to the host "base"), and a URL of another database as PostgreSQL's.

/** A connection string of the right shape, for messages. */
export const PG_URL_EXAMPLE = 'postgres://user:password@localhost:5432/keys'

const SCHEMES = new Set(['postgres:', 'postgresql:', 'socket:'])

/**
 * What is wrong with a PostgreSQL connection string, in words that follow its name ("is not
 * a URL", "has the scheme mysql://, not postgres:// or postgresql://"), or `undefined` when it
 * has the right shape: a `postgres://` or `postgresql://` URL, node-postgres's `socket:` URL, or
 * the path of a socket directory. The words never repeat the string (it may hold a password).
 *
 * @example
 * ```ts
 * import { connectionStringProblem, PG_URL_EXAMPLE } from '@keyward/postgres'
 *
 * const problem = connectionStringProblem(process.env.DATABASE_URL ?? '')
 * if (problem) throw new Error(`DATABASE_URL ${problem}: give one such as ${PG_URL_EXAMPLE}.`)
 * ```
 */
export function connectionStringProblem(value: string): string | undefined {
  if (value.trim() === '') return 'is empty'
  if (value.startsWith('/')) return undefined
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]
  if (scheme === undefined) return 'is not a URL (it has no scheme such as postgres://)'
  if (!SCHEMES.has(`${scheme.toLowerCase()}:`)) {
    return `has the scheme ${scheme.toLowerCase()}://, not postgres:// or postgresql://`
  }
  try {
    new URL(value)
  } catch {
    return 'is not a valid URL (a character outside a URL, or a password with an unescaped @ or /)'
  }
  return undefined
}

/** @internal Throws a `TypeError` naming `who`'s option when a connection string has a problem. */
export function checkConnectionString(who: string, option: string, value: unknown): void {
  const problem = typeof value === 'string' ? connectionStringProblem(value) : 'is not a string'
  if (problem) {
    throw new TypeError(`${who}: option \`${option}\` ${problem}: give one such as ${PG_URL_EXAMPLE}.`)
  }
}
