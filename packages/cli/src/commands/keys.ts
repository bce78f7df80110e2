import {
  DEFAULT_PAGE_LIMIT,
  decodeCursor,
  displayKey,
  encodeCursor,
  isKeywardError,
  type KeyOwner,
  type KeyPage,
  type KeyPagePosition,
  type KeyRecord,
  type Keyward,
  keyToJson,
  MAX_PAGE_LIMIT,
  readExpiryFields,
  revokedReason,
  rolledKeyToJson,
} from '@keyward/core'
import { type Command, type CommandContext, idArgument, ownerOption, stringOption } from '../command.js'
import { CliError, EXIT, type ExitCode, usageError } from '../exit.js'
import { plural, printable, table, timestamp } from '../output.js'
import { namingMaxLifetime, serviceOptions } from './policies.js'

const OWNER_LABEL = { developer: 'developer', project: 'project' } as const

const listed = (keyward: Keyward, record: KeyRecord) => keyToJson(record, keyward.isRotationDue(record))
const optionalTime = (date: Date | null | undefined) => (date ? timestamp(date) : '-')
// An API key's policies in a few words: `ip 2, 1 permission, metadata`, or `-`.
const policies = (record: KeyRecord) =>
  [
    record.ipAllowlist ? `ip ${record.ipAllowlist.length}` : '',
    record.permissions ? plural(record.permissions.length, 'permission') : '',
    record.roleIds?.length ? plural(record.roleIds.length, 'role') : '',
    record.metadata ? 'metadata' : '',
    record.remaining != null ? `credits ${record.remaining}` : '',
  ]
    .filter(Boolean)
    .join(', ') || '-'
const describe = (record: KeyRecord) =>
  `${displayKey(record.keyPrefix)}, ${OWNER_LABEL[record.ownerType]} ${printable(record.ownerId)}`

/** @internal Keys as a table, by prefix only: what `keys list` and `identities keys` print. */
export function keyTable(keyward: Keyward, keys: readonly KeyRecord[]): string {
  return table(
    ['ID', 'KEY', 'NAME', 'ACTIVE', 'REVOKED', 'CREATED', 'EXPIRES', 'USED', 'DUE', 'POLICIES'],
    keys.map((r) => [
      r.id,
      displayKey(r.keyPrefix),
      r.name ?? '-',
      r.active ? 'yes' : 'no',
      revokedReason(r) ?? '-',
      timestamp(r.createdAt),
      optionalTime(r.expiresAt),
      optionalTime(r.lastUsedAt),
      keyward.isRotationDue(r) ? 'yes' : 'no',
      policies(r),
    ]),
  )
}

/**
 * @internal The page the options ask for: `--limit` 1 to 200, `--cursor` a next_cursor of this
 * command or the API; `undefined` when neither is given (every item).
 */
export function pageOptions(
  context: CommandContext,
): { limit?: number; after?: KeyPagePosition } | undefined {
  const limit = stringOption(context, 'limit')
  const cursor = stringOption(context, 'cursor')
  if (limit === undefined && cursor === undefined) return undefined
  if (
    limit !== undefined &&
    !(/^\d{1,3}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= MAX_PAGE_LIMIT)
  ) {
    throw usageError(`--limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}.`)
  }
  let after: KeyPagePosition | undefined
  try {
    after = cursor === undefined ? undefined : decodeCursor(cursor)
  } catch (error) {
    throw usageError(`--cursor: ${isKeywardError(error) ? error.msg : String(error)}`)
  }
  return { limit: limit === undefined ? DEFAULT_PAGE_LIMIT : Number(limit), ...(after ? { after } : {}) }
}

/** @internal Every item of a listing, newest first, asked for a page of 200 at a time. */
export async function everyPage<T>(
  listPage: (query: {
    limit: number
    after?: KeyPagePosition
  }) => Promise<{ readonly records: readonly T[]; readonly next: KeyPagePosition | null }>,
): Promise<{ records: T[]; next: null }> {
  const records: T[] = []
  let after: KeyPagePosition | undefined
  do {
    const page = await listPage(after ? { limit: MAX_PAGE_LIMIT, after } : { limit: MAX_PAGE_LIMIT })
    records.push(...page.records)
    after = page.next ?? undefined
  } while (after)
  return { records, next: null }
}

// Every key of the owner, newest first.
const allKeys = (keyward: Keyward, owner: KeyOwner): Promise<KeyPage> =>
  everyPage((query) => keyward.listKeysPage(owner, query))

/** `keyward keys list --developer ID | --project ID`: the owner's keys, by prefix only. */
export const listCommand: Command = {
  name: 'keys list',
  summary: "List a developer's or a project's keys (prefixes only)",
  description:
    "Lists a developer's or a project's keys, active or not, newest first: all of them, or one page " +
    'with --limit or --cursor (the last line says how to ask for the next page; --json gives its ' +
    'next_cursor). A key shows as its 8-character prefix (ak_Ab3xY...): the full key is never stored, ' +
    'so it can never be listed. REVOKED says why an inactive key was deactivated (leaked: a ' +
    'secret-scanning report; revoked: any other way) or that a key was rolled. USED is when the key ' +
    'last authenticated (recorded at most once a minute per server process); DUE marks keys older ' +
    'than the rotation period (90 days): roll them with keyward keys roll. POLICIES sums up an API ' +
    "key's IP allowlist, permissions and metadata (--json shows them).",
  arguments: [],
  options: [
    { flags: '--developer <id>', help: "list this developer's keys" },
    { flags: '--project <id>', help: "list this project's API keys" },
    { flags: '--due', help: 'list only the keys due for rotation' },
    { flags: '--limit <n>', help: `one page of at most n keys, 1 to ${MAX_PAGE_LIMIT} (default: every key)` },
    { flags: '--cursor <cursor>', help: 'the page after this cursor (from a previous page)' },
  ],
  store: true,
  exitCodes: '0 listed (also when there are none), 2 usage error, 3 store unavailable',
  async run(context) {
    const owner = ownerOption(context)
    const paging = pageOptions(context)
    return context.withKeyward(async (keyward) => {
      const page = paging ? await keyward.listKeysPage(owner, paging) : await allKeys(keyward, owner)
      const due = context.values.due === true
      const keys = due ? page.records.filter((record) => keyward.isRotationDue(record)) : page.records
      const active = keys.filter((record) => record.active).length
      const nextCursor = page.next ? encodeCursor(page.next) : null
      const more = nextCursor
        ? `\nMore keys: keyward keys list --${owner.type} ${printable(owner.id)} --limit ${paging?.limit} --cursor ${nextCursor}`
        : ''
      const text =
        keys.length === 0
          ? `No ${due ? 'keys due for rotation' : 'keys'} for ${OWNER_LABEL[owner.type]} ${printable(owner.id)}${paging?.after ? ' after this cursor' : ''}.${more}`
          : `${keyTable(keyward, keys)}\n\n${plural(keys.length, 'key')}${due ? ' due for rotation' : ''}, ${active} active.${more}`
      const named = await keyward.withRoleNames(keys)
      context.print(text, { keys: named.map((record) => listed(keyward, record)), next_cursor: nextCursor })
      return EXIT.ok
    })
  },
}

/** `keyward keys expire <key-id> --at ISO | --in-days N | --never`: sets when a key expires. */
export const expireCommand: Command = {
  name: 'keys expire',
  summary: 'Set when a key expires, or that it never does',
  description:
    'Sets the expiry of the key with this id, a developer key or an API key: --at a time (ISO 8601 ' +
    'with an offset, e.g. 2027-01-31T00:00:00Z, in the future), --in-days N (1 to 3650), or --never. ' +
    'Every server process refuses the key once it has expired, as after a revocation. A rolled key ' +
    'keeps the end of its grace window (key_rolled), and an expired key stays expired (key_expired). ' +
    "With KEYWARD_MAX_API_KEY_LIFETIME_DAYS set, an API key's expiry (from its creation) must be within it.",
  arguments: [['key-id', 'the id of the key (from keyward keys list)']],
  options: [
    { flags: '--at <time>', help: 'when the key expires: ISO 8601 with an offset, in the future' },
    { flags: '--in-days <n>', help: 'the key expires n days from now, 1 to 3650' },
    { flags: '--never', help: 'the key never expires' },
  ],
  store: true,
  exitCodes: '0 set, 1 no such key or refused (rolled, expired), 2 usage error, 3 store unavailable',
  async run(context) {
    const keyId = idArgument(context.positionals[0], '<key-id>')
    const change = expiryChange(context)
    return context.withKeyward(async (keyward) => {
      const updated = await keyward.setKeyExpiry(keyId, change).catch((error: unknown) => {
        // The time was checked as the API checks it: what is left of a 422 is the option's fault
        // (or beyond the maximum lifetime of KEYWARD_MAX_API_KEY_LIFETIME_DAYS, which it names).
        const refused = namingMaxLifetime(error)
        if (isKeywardError(refused) && refused.status === 422) throw usageError(refused.msg)
        throw error
      })
      if (!updated) throw new CliError('not_found', `No key with id ${printable(keyId)}.`, EXIT.failed)
      const when = updated.expiresAt ? `expires ${timestamp(updated.expiresAt)}` : 'never expires'
      context.print(`Key ${updated.id} (${describe(updated)}) ${when}.`, listed(keyward, updated))
      return EXIT.ok
    }, serviceOptions(context))
  },
}

// The expiry the options give: exactly one of --at, --in-days, --never.
function expiryChange(context: CommandContext) {
  const at = stringOption(context, 'at')
  const days = stringOption(context, 'in-days')
  const never = context.values.never === true
  if ([at !== undefined, days !== undefined, never].filter(Boolean).length !== 1) {
    throw usageError('Give exactly one of --at TIME, --in-days N or --never.')
  }
  if (never) return { expiresAt: null }
  if (days !== undefined) {
    if (!/^\d{1,4}$/.test(days)) throw usageError('--in-days must be a whole number of days, 1 to 3650.')
    return { expiresInDays: Number(days) }
  }
  try {
    return { expiresAt: readExpiryFields({ expires_at: at }).expiresAt! }
  } catch (error) {
    throw usageError(`--at: ${isKeywardError(error) ? error.msg : String(error)}`)
  }
}

/** Finds the key, sets it active or not, and says what changed; exits 1 for an unknown id. */
async function setActive(context: CommandContext, active: boolean): Promise<ExitCode> {
  const keyId = idArgument(context.positionals[0], '<key-id>')
  const { changed, updated, json } = await context.withKeyward(async (keyward) => {
    const current = await keyward.findKey(keyId)
    const updated = current && (await (active ? keyward.activateKey(keyId) : keyward.deactivateKey(keyId)))
    if (!current || !updated)
      throw new CliError('not_found', `No key with id ${printable(keyId)}.`, EXIT.failed)
    return { changed: current.active !== active, updated, json: listed(keyward, updated) }
  })
  const what = describe(updated)
  context.print(
    changed
      ? `${active ? 'Activated' : 'Revoked'} key ${updated.id} (${what}).`
      : `Key ${updated.id} (${what}) was already ${active ? 'active' : 'inactive'}.`,
    json,
  )
  return EXIT.ok
}

/** `keyward keys revoke <key-id>`: deactivates a key of either kind. */
export const revokeCommand: Command = {
  name: 'keys revoke',
  summary: 'Revoke (deactivate) a key by its id',
  description:
    'Deactivates the key with this id, a developer key or an API key: it fails authentication from ' +
    'now on. Revoking a key that is already inactive changes nothing and succeeds. Find key ids with ' +
    'keyward keys list; keyward keys activate undoes it.',
  arguments: [['key-id', 'the id of the key (from keyward keys list)']],
  options: [],
  store: true,
  exitCodes: '0 revoked (or already inactive), 1 no such key, 2 usage error, 3 store unavailable',
  run: (context) => setActive(context, false),
}

/** `keyward keys activate <key-id>`: re-activates a key, within the owner's limit. */
export const activateCommand: Command = {
  name: 'keys activate',
  summary: 'Re-activate a revoked key by its id, within the limit',
  description:
    'Re-activates the key with this id, a developer key or an API key: it passes authentication ' +
    'again. A developer may have at most 10 active keys: re-activating one more is refused ' +
    '(limit_exceeded), atomically, as the API refuses it. An expired key or a rolled one cannot be ' +
    're-activated (key_expired, key_rolled). Activating a key that is already active changes ' +
    'nothing and succeeds.',
  arguments: [['key-id', 'the id of the key (from keyward keys list)']],
  options: [],
  store: true,
  exitCodes:
    '0 activated (or already active), 1 no such key, or the limit, an expiry or a roll refused it, 2 usage error, 3 store unavailable',
  run: (context) => setActive(context, true),
}

const ROLL_NOTICE = 'This key will not be shown again: store it now, then move its users to it.'

/** `keyward keys roll <key-id> [--grace-seconds N]`: a new key; the old one works for the grace window. */
export const rollCommand: Command = {
  name: 'keys roll',
  summary: 'Replace a key with a new one; the old one keeps working for a grace window',
  description:
    'Issues a new key for the same owner, with the same name and lifetime, and prints it in full, this ' +
    'once. The old key keeps working for the grace window (default 86400 seconds, at most 604800; 0 stops ' +
    "it at once), then expires. Watch the old key's USED time in keyward keys list, then revoke it. " +
    "An API key's permissions must be among KEYWARD_PERMISSIONS and its lifetime within " +
    'KEYWARD_MAX_API_KEY_LIFETIME_DAYS (when set), as the server has them.',
  arguments: [['key-id', 'the id of the key (from keyward keys list)']],
  options: [
    { flags: '--grace-seconds <n>', help: 'how long the old key keeps working, 0 to 604800 (default 86400)' },
  ],
  store: true,
  exitCodes:
    '0 rolled, 1 no such key or refused (rolled, expired, inactive), 2 usage error, 3 store unavailable',
  async run(context) {
    const keyId = idArgument(context.positionals[0], '<key-id>')
    const grace = stringOption(context, 'grace-seconds')
    if (grace !== undefined && !/^\d{1,7}$/.test(grace)) {
      throw usageError('--grace-seconds must be a whole number of seconds, 0 to 604800.')
    }
    return context.withKeyward(async (keyward) => {
      const current = await keyward.findKey(keyId)
      // The roll checks the key's permissions against the declared ones and its lifetime
      // against the maximum: both as the server has them (KEYWARD_PERMISSIONS,
      // KEYWARD_MAX_API_KEY_LIFETIME_DAYS).
      const rolled =
        current &&
        (await keyward
          .rollKey(keyId, grace === undefined ? {} : { graceSeconds: Number(grace) })
          .catch((error: unknown) => {
            throw namingMaxLifetime(error)
          }))
      if (!current || !rolled)
        throw new CliError('not_found', `No key with id ${printable(keyId)}.`, EXIT.failed)
      const until = rolled.previous.expiresAt ? timestamp(rolled.previous.expiresAt) : '-'
      context.print(
        [
          `Rolled key ${current.id} (${describe(current)}).`,
          '',
          `  New key     ${rolled.key}`,
          `  Key id      ${rolled.record.id}`,
          `  Old key id  ${rolled.previous.id}, works until ${until}`,
          '',
          ROLL_NOTICE,
        ].join('\n'),
        {
          ...rolledKeyToJson({ ...rolled, record: (await keyward.withRoleNames([rolled.record]))[0]! }),
          notice: ROLL_NOTICE,
        },
      )
      return EXIT.ok
    }, serviceOptions(context))
  },
}
