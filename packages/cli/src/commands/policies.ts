import {
  type CreditRefill,
  type CreditsLowAt,
  ErrorType,
  isKeywardError,
  type KeyPolicies,
  type KeyRecord,
  type Keyward,
  KeywardError,
  type KeywardOptions,
  keyToJson,
  type StoredRateLimit,
} from '@keyward/core'
import { type Command, type CommandContext, idArgument, listOption, stringOption } from '../command.js'
import { CliError, EXIT, usageError } from '../exit.js'
import { printable } from '../output.js'
import {
  CREDITS_LOW_AT_CHANGE_OPTION,
  CREDITS_LOW_AT_OPTION,
  creditsLowAtOption,
  creditsOption,
  refillOption,
} from './credits.js'

/** The environment variable that names the permissions the host declares, comma-separated. */
export const PERMISSIONS_ENV = 'KEYWARD_PERMISSIONS'

/** The environment variable that gives the longest an API key may live, in days (as the reference server reads it). */
export const MAX_LIFETIME_ENV = 'KEYWARD_MAX_API_KEY_LIFETIME_DAYS'

const POLICY_OPTIONS = [
  {
    flags: '--ip <address-or-cidr>',
    help: 'an address or CIDR range the key may be used from (repeat it, at most 100)',
    repeatable: true,
  },
  {
    flags: '--permission <name>',
    help: `a permission the key carries, one of ${PERMISSIONS_ENV} (repeat it)`,
    repeatable: true,
  },
  {
    flags: '--metadata <json>',
    help: 'a JSON object of at most 4096 bytes handed to the server with the key',
  },
  {
    flags: '--ratelimit <limit>',
    help: 'a named rate limit of the key, NAME:LIMIT/DURATION, e.g. requests:100/1m (repeat it, at most 5)',
    repeatable: true,
  },
  {
    flags: '--role <name>',
    help: "a role of the key's project, by name, whose permissions the key has too (repeat it)",
    repeatable: true,
  },
] as const

// The declared permissions, from the environment: the CLI cannot know the host's otherwise.
const declared = (context: CommandContext) =>
  (context.io.env[PERMISSIONS_ENV] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '')

/** @internal `--metadata JSON`, parsed (the service checks it is an object of at most 4 KB). */
export function metadataOption(context: CommandContext): unknown {
  const text = stringOption(context, 'metadata')
  if (text === undefined) return undefined
  try {
    return JSON.parse(text)
  } catch {
    throw usageError('--metadata must be a JSON object, e.g. \'{"plan":"pro"}\'.')
  }
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const
const RATE_LIMIT_OPTION = /^([^:]+):(\d{1,10})\/(\d{1,6})([smhd])$/

/**
 * @internal `--ratelimit NAME:LIMIT/DURATION` (e.g. `requests:10/1s`), repeatable, of a key or an
 * identity; `undefined` when not given (the service checks the rest).
 */
export function rateLimitsOption(context: CommandContext): StoredRateLimit[] | undefined {
  return listOption(context, 'ratelimit')?.map((text) => {
    const match = RATE_LIMIT_OPTION.exec(text)
    if (!match) {
      throw usageError(
        `--ratelimit must be NAME:LIMIT/DURATION with a duration in s, m, h or d, e.g. requests:10/1s, got ${printable(text)}.`,
      )
    }
    const [, name, limit, count, unit] = match
    return {
      name: name!,
      limit: Number(limit),
      duration: Number(count) * UNIT_MS[unit as keyof typeof UNIT_MS],
    }
  })
}

/** @internal `10 per 1s`, `1000 per 1d`: a limit, its duration as the largest whole unit. */
export function per({ limit, duration }: StoredRateLimit): string {
  const [unit, ms] = (Object.entries(UNIT_MS) as [string, number][])
    .reverse()
    .find(([, ms]) => duration % ms === 0)!
  return `${limit} per ${duration / ms}${unit}`
}

// The policies the options give; `clear` lists the options that set one to none.
function policiesOf(context: CommandContext, clear = false): KeyPolicies {
  const ip = listOption(context, 'ip')
  const permissions = listOption(context, 'permission')
  const metadata = metadataOption(context)
  const ratelimits = rateLimitsOption(context)
  const roles = listOption(context, 'role')
  const cleared = (name: string) => clear && context.values[name] === true
  for (const [given, name] of [
    [ip, 'any-ip'],
    [permissions, 'all-permissions'],
    [metadata, 'clear-metadata'],
    [ratelimits, 'clear-ratelimits'],
    [roles, 'clear-roles'],
  ] as const) {
    if (given !== undefined && cleared(name)) throw usageError(`--${name} cannot go with a value for it.`)
  }
  return {
    ...(ip !== undefined ? { ipAllowlist: ip } : cleared('any-ip') ? { ipAllowlist: null } : {}),
    ...(permissions !== undefined
      ? { permissions }
      : cleared('all-permissions')
        ? { permissions: null }
        : {}),
    ...(metadata !== undefined
      ? { metadata: metadata as KeyPolicies['metadata'] }
      : cleared('clear-metadata')
        ? { metadata: null }
        : {}),
    ...(ratelimits !== undefined ? { ratelimits } : cleared('clear-ratelimits') ? { ratelimits: null } : {}),
    ...(roles !== undefined ? { roles } : cleared('clear-roles') ? { roles: null } : {}),
  }
}

// A 422 of the service is the options' fault: say which option, in the service's words.
const OPTION_OF: Readonly<Record<string, string>> = {
  ip_allowlist: '--ip',
  permissions: '--permission',
  metadata: '--metadata',
  ratelimits: '--ratelimit',
  expires_in_days: '--in-days',
  remaining: '--credits',
  refill: '--refill',
  credits_low_at: '--credits-low-at',
  name: '--name',
  external_id: '--external-id',
  identity_id: '--identity',
  roles: '--role',
  url: '--url',
  description: '--description',
  project_ids: '--project',
  event_types: '--event',
  event_id: '--event-id',
  from: '--from',
  to: '--to',
}

/** @internal Runs a service call; its 422 becomes a usage error that names the faulty option. */
export async function asUsage<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (!isKeywardError(error) || error.status !== 422) throw error
    const refused = namingMaxLifetime(error) as KeywardError
    const option = OPTION_OF[refused.loc[1] ?? ''] ?? 'an option'
    const index = refused.loc[2] === undefined ? '' : ` (value ${Number(refused.loc[2]) + 1})`
    throw usageError(`${option}${index}: ${refused.msg}`)
  }
}

// The maximum lifetime of API keys, from the environment as the server reads it; unset: none.
function maxLifetimeDays(context: CommandContext): number | undefined {
  const text = context.io.env[MAX_LIFETIME_ENV]?.trim()
  if (text === undefined || text === '') return undefined
  const days = /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN
  if (!(days >= 1 && days <= 3650)) {
    throw usageError(`${MAX_LIFETIME_ENV} must be a whole number of days, 1 to 3650, got ${printable(text)}.`)
  }
  return days
}

/**
 * @internal The key service's policies as the host's server has them: the permissions it
 * declares (`KEYWARD_PERMISSIONS`) and the maximum lifetime of API keys
 * (`KEYWARD_MAX_API_KEY_LIFETIME_DAYS`). Every command that creates a key or changes its
 * policies, expiry or keys passes them, so the CLI refuses what the server would.
 */
export function serviceOptions(context: CommandContext): Omit<KeywardOptions, 'store'> {
  const days = maxLifetimeDays(context)
  return {
    permissions: declared(context),
    ...(days === undefined ? {} : { keyPolicies: { project: { maxLifetimeDays: days } } }),
  }
}

/**
 * @internal A `lifetime_exceeded` refusal names the variable that set the maximum, so an
 * operator knows where it comes from; any other error passes unchanged.
 */
export function namingMaxLifetime(error: unknown): unknown {
  if (!isKeywardError(error) || error.type !== ErrorType.lifetimeExceeded) return error
  return new KeywardError(error.type, `${error.msg} (${MAX_LIFETIME_ENV})`, error.loc, { cause: error })
}

const NOT_SHOWN_AGAIN = 'This key will not be shown again: store it now, e.g. as SERVICE_PROJECT_KEY.'

/** `keyward keys create --project ID [--ip ...] [--permission ...] [--metadata JSON] [--ratelimit ...]`: an API key, printed once. */
export const createCommand: Command = {
  name: 'keys create',
  summary: "Create a project's API key, with its access policies, and print it once",
  description:
    'Issues an API key of the project and prints it in full, this once. --ip (repeatable) limits the ' +
    'addresses it may be used from; --permission (repeatable) gives it only these permissions, among ' +
    `those the host declares in ${PERMISSIONS_ENV} (comma-separated; without --permission the key ` +
    'has every permission); --metadata attaches a JSON object handed to the server with the key; ' +
    '--ratelimit (repeatable, at most 5) gives it a named rate limit, NAME:LIMIT/DURATION (s, m, h or d). ' +
    `With ${MAX_LIFETIME_ENV} set (1 to 3650), the key lives at most that many days, as on the server. ` +
    '--identity joins it to an identity of the project, --external-id to the identity with your id for the ' +
    'customer (created on first use): it then shares its rate limits, credits and metadata. --role ' +
    "(repeatable) gives it a role of the project by name: it may do what its own permissions and its roles' allow " +
    '(with a role and no --permission, only what its roles allow).',
  arguments: [],
  options: [
    { flags: '--project <id>', help: 'the project the key belongs to' },
    { flags: '--name <name>', help: 'a descriptive name for the key, 1 to 100 characters' },
    { flags: '--in-days <n>', help: 'the key expires n days from now, 1 to 3650' },
    ...POLICY_OPTIONS,
    { flags: '--credits <n>', help: 'the credits the key starts with (without it: unlimited)' },
    { flags: '--refill <rule>', help: 'with --credits: AMOUNT:daily or AMOUNT:monthly:DAY (1-31)' },
    CREDITS_LOW_AT_OPTION,
    { flags: '--identity <id>', help: 'the identity the key joins (from keyward identities list)' },
    {
      flags: '--external-id <id>',
      help: 'the identity the key joins, by your id for it: created on first use',
    },
  ],
  store: true,
  exitCodes: '0 created, 1 refused (a deleted project), 2 usage error, 3 store unavailable',
  async run(context) {
    const projectId = idArgument(stringOption(context, 'project'), '--project')
    const days = stringOption(context, 'in-days')
    if (days !== undefined && !/^\d{1,4}$/.test(days)) {
      throw usageError('--in-days must be a whole number of days, 1 to 3650.')
    }
    const policies = policiesOf(context)
    const name = stringOption(context, 'name') ?? null
    const credits = stringOption(context, 'credits')
    const refill = refillOption(stringOption(context, 'refill')) as CreditRefill | null | undefined
    const creditsLowAt = creditsLowAtOption(stringOption(context, 'credits-low-at')) as
      | CreditsLowAt
      | undefined
    const identityId = stringOption(context, 'identity')
    const externalId = stringOption(context, 'external-id')
    return context.withKeyward(async (keyward) => {
      const options = {
        name,
        ...policies,
        ...(days === undefined ? {} : { expiresInDays: Number(days) }),
        ...(credits === undefined ? {} : { remaining: creditsOption(credits, '--credits') }),
        ...(refill === undefined ? {} : { refill }),
        ...(creditsLowAt === undefined ? {} : { creditsLowAt }),
        ...(identityId === undefined ? {} : { identityId }),
        ...(externalId === undefined ? {} : { externalId }),
      }
      const issued = await asUsage(() => keyward.issueProjectKey(projectId, options))
      const { key } = issued
      const [record] = (await keyward.withRoleNames([issued.record])) as [KeyRecord]
      context.print(
        [
          `Created API key ${record.id} of project ${printable(projectId)}.`,
          '',
          `  Key  ${key}`,
          '',
          NOT_SHOWN_AGAIN,
        ].join('\n'),
        { ...keyToJson(record), key, notice: NOT_SHOWN_AGAIN },
      )
      return EXIT.ok
    }, serviceOptions(context))
  },
}

/**
 * `keyward keys update <key-id> [--ip ... | --any-ip] [--permission ... | --all-permissions]
 * [--metadata JSON | --clear-metadata] [--ratelimit ... | --clear-ratelimits] [--credits-low-at N|P%|none]
 * [--identity ID | --leave-identity]`.
 */
export const updateCommand: Command = {
  name: 'keys update',
  summary:
    "Change an API key's IP allowlist, permissions, metadata, rate limits, roles, low-credits threshold or identity",
  description:
    'Changes the access policies of the API key with this id; what is not named stays. --ip ' +
    '(repeatable) replaces the IP allowlist, --any-ip removes it; --permission (repeatable) replaces ' +
    `the permissions (among ${PERMISSIONS_ENV}), --all-permissions gives every permission; --metadata ` +
    'replaces the metadata, --clear-metadata removes it; --ratelimit (repeatable) replaces the stored rate ' +
    'limits, --clear-ratelimits removes them; --role (repeatable, by name) replaces its roles, --clear-roles ' +
    'removes them; --credits-low-at sets the low-credits threshold (N credits or P% of the refill amount, ' +
    "checked against the key's credits), none removes it; --identity joins the key to an identity of its project, " +
    '--leave-identity takes it out of its identity. Every server process sees the change within its ' +
    'revocation bound, as a revocation.',
  arguments: [['key-id', 'the id of the key (from keyward keys list)']],
  options: [
    ...POLICY_OPTIONS,
    { flags: '--any-ip', help: 'remove the IP allowlist: the key may be used from anywhere' },
    { flags: '--all-permissions', help: 'give the key every declared permission' },
    { flags: '--clear-metadata', help: 'remove the metadata' },
    { flags: '--clear-ratelimits', help: "remove the key's stored rate limits" },
    { flags: '--clear-roles', help: 'take every role from the key' },
    CREDITS_LOW_AT_CHANGE_OPTION,
    { flags: '--identity <id>', help: "join this identity of the key's project" },
    { flags: '--leave-identity', help: 'take the key out of its identity' },
  ],
  store: true,
  exitCodes: '0 updated, 1 no such API key, 2 usage error, 3 store unavailable',
  async run(context) {
    const keyId = idArgument(context.positionals[0], '<key-id>')
    const lowAt = creditsLowAtOption(stringOption(context, 'credits-low-at'), true) as
      | CreditsLowAt
      | null
      | undefined
    const policies = { ...policiesOf(context, true), ...(lowAt === undefined ? {} : { creditsLowAt: lowAt }) }
    const joins = stringOption(context, 'identity')
    const leaves = context.values['leave-identity'] === true
    if (joins !== undefined && leaves) throw usageError('--leave-identity cannot go with --identity.')
    if (Object.keys(policies).length === 0 && joins === undefined && !leaves) {
      throw usageError(
        'Give at least one of --ip, --any-ip, --permission, --all-permissions, --metadata, --clear-metadata, ' +
          '--ratelimit, --clear-ratelimits, --role, --clear-roles, --credits-low-at, --identity, --leave-identity.',
      )
    }
    const notFound = () => new CliError('not_found', `No API key with id ${printable(keyId)}.`, EXIT.failed)
    return context.withKeyward(async (keyward: Keyward) => {
      const current = await keyward.findKey(keyId)
      if (current?.ownerType !== 'project') throw notFound()
      // The identity is checked before anything is written, as the API checks it.
      if (joins !== undefined && (await keyward.findIdentity(joins))?.projectId !== current.ownerId) {
        throw usageError(`--identity: project ${printable(current.ownerId)} has no such identity.`)
      }
      let updated: KeyRecord | null = current
      if (Object.keys(policies).length > 0)
        updated = await asUsage(() => keyward.setKeyPolicies(keyId, policies))
      if (updated && (joins !== undefined || leaves))
        updated = await keyward.setKeyIdentity(keyId, joins ?? null)
      if (!updated) throw notFound()
      const said = [
        Object.keys(policies).length > 0 ? `Updated the policies of key ${updated.id}.` : '',
        joins !== undefined ? `Key ${updated.id} joined identity ${printable(joins)}.` : '',
        leaves ? `Key ${updated.id} left its identity.` : '',
      ]
      const [named] = (await keyward.withRoleNames([updated])) as [KeyRecord]
      context.print(said.filter(Boolean).join('\n'), keyToJson(named))
      return EXIT.ok
    }, serviceOptions(context))
  },
}
