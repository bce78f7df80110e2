import {
  type CreditRefill,
  type CreditsLowAt,
  checkExternalId,
  ErrorType,
  encodeCursor,
  type IdentityRecord,
  identityToJson,
  isKeywardError,
  type Keyward,
  type KeywardError,
  keyToJson,
  MAX_PAGE_LIMIT,
} from '@keyward/core'
import { type Command, type CommandContext, idArgument, listOption, stringOption } from '../command.js'
import { CliError, EXIT, usageError } from '../exit.js'
import { plural, printable, table, timestamp } from '../output.js'
import {
  CREDITS_LOW_AT_CHANGE_OPTION,
  CREDITS_LOW_AT_OPTION,
  creditsLowAtOption,
  creditsOption,
  refillOption,
} from './credits.js'
import { everyPage, keyTable, pageOptions } from './keys.js'
import { asUsage, metadataOption, per, rateLimitsOption } from './policies.js'

const limitsOf = (identity: IdentityRecord) =>
  identity.ratelimits.map((limit) => `${limit.name} ${per(limit)}`).join(', ') || '-'
const creditsOf = (identity: IdentityRecord) =>
  identity.remaining === null
    ? '-'
    : `${identity.remaining}${identity.refill ? ` (refill ${identity.refill.amount} ${identity.refill.interval})` : ''}`

// Identities as --json prints them: with the names of the roles they hold (one read for all).
const identitiesJson = async (keyward: Keyward, identities: readonly IdentityRecord[]) =>
  (await keyward.withRoleNames(identities)).map(identityToJson)
const identityJson = async (keyward: Keyward, identity: IdentityRecord) =>
  (await identitiesJson(keyward, [identity]))[0]

const ROLE_OPTION = {
  flags: '--role <name>',
  help: 'a role of the project, by name, whose permissions every key of the identity has too (repeat it)',
  repeatable: true,
} as const

const noSuchIdentity = (id: string) =>
  new CliError(ErrorType.notFound, `No identity with id ${printable(id)}.`, EXIT.failed)

// The identity named by `<identity-id>`, or exit 1.
async function identityArgument(keyward: Keyward, context: CommandContext): Promise<IdentityRecord> {
  const id = idArgument(context.positionals[0], '<identity-id>')
  const identity = await keyward.findIdentity(id)
  if (identity === null) throw noSuchIdentity(id)
  return identity
}

const ID_ARGUMENT = ['identity-id', 'the id of the identity (from keyward identities list)'] as const

/** `keyward identities create --project ID --external-id ID [--metadata JSON] [--ratelimit ...] [--credits N [--refill RULE] [--credits-low-at N|P%]] [--role NAME ...]`. */
export const identitiesCreateCommand: Command = {
  name: 'identities create',
  summary: 'Create an identity: a customer of a project, whose keys share its limits and credits',
  description:
    'Creates an identity in the project: your id for the customer (--external-id, 1 to 255 characters, ' +
    'unique within the project), --metadata (a JSON object of at most 4096 bytes answered with every ' +
    'verification of its keys), named rate limits shared by its keys (--ratelimit NAME:LIMIT/DURATION, ' +
    'repeatable, at most 5, a duration from 1s to 1d), and a credit pool its keys spend from (--credits, ' +
    'with --refill AMOUNT:daily or AMOUNT:monthly:DAY, and --credits-low-at N or P% for the webhook event ' +
    'credits.low). --role (repeatable) gives it a role of the ' +
    'project by name: every key of the identity may do what the role allows, besides its own permissions ' +
    "and roles (a key without --permission then only what its roles and its identity's allow). Keys join " +
    'it with keyward keys create --identity or --external-id, or keyward keys update --identity.',
  arguments: [],
  options: [
    { flags: '--project <id>', help: 'the project the identity belongs to' },
    { flags: '--external-id <id>', help: 'your id for the customer, 1 to 255 characters' },
    { flags: '--metadata <json>', help: 'a JSON object of at most 4096 bytes' },
    {
      flags: '--ratelimit <limit>',
      help: 'NAME:LIMIT/DURATION, e.g. requests:10/1s (repeat it, at most 5)',
      repeatable: true,
    },
    { flags: '--credits <n>', help: 'the credit pool its keys spend from (without it: none)' },
    { flags: '--refill <rule>', help: 'with --credits: AMOUNT:daily or AMOUNT:monthly:DAY (1-31)' },
    CREDITS_LOW_AT_OPTION,
    ROLE_OPTION,
  ],
  store: true,
  exitCodes:
    '0 created, 1 refused (the project has an identity with this external id), 2 usage error, 3 store unavailable',
  async run(context) {
    const projectId = idArgument(stringOption(context, 'project'), '--project')
    const externalId = stringOption(context, 'external-id')
    if (externalId === undefined) throw usageError('--external-id is required.')
    const credits = stringOption(context, 'credits')
    const options = {
      externalId,
      metadata: metadataOption(context) as IdentityRecord['metadata'] | undefined,
      ratelimits: rateLimitsOption(context),
      ...(credits === undefined ? {} : { remaining: creditsOption(credits, '--credits') }),
      refill: refillOption(stringOption(context, 'refill')) as CreditRefill | null | undefined,
      creditsLowAt: creditsLowAtOption(stringOption(context, 'credits-low-at')) as CreditsLowAt | undefined,
      roles: listOption(context, 'role'),
    }
    return context.withKeyward(async (keyward) => {
      const identity = await asUsage(() => keyward.createIdentity(projectId, options))
      context.print(
        `Created identity ${identity.id} (${printable(identity.externalId)}) of project ${printable(projectId)}.`,
        await identityJson(keyward, identity),
      )
      return EXIT.ok
    })
  },
}

/** `keyward identities list --project ID [--external-id ID] [--limit N] [--cursor C]`. */
export const identitiesListCommand: Command = {
  name: 'identities list',
  summary: "List a project's identities, or find one by its external id",
  description:
    "Lists the project's identities, newest first: all of them, or one page with --limit or --cursor " +
    '(the last line says how to ask for the next page; --json gives its next_cursor). With ' +
    '--external-id, the one identity with your id for it, if there is one.',
  arguments: [],
  options: [
    { flags: '--project <id>', help: "list this project's identities" },
    { flags: '--external-id <id>', help: 'only the identity with this external id' },
    {
      flags: '--limit <n>',
      help: `one page of at most n identities, 1 to ${MAX_PAGE_LIMIT} (default: every one)`,
    },
    { flags: '--cursor <cursor>', help: 'the page after this cursor (from a previous page)' },
  ],
  store: true,
  exitCodes: '0 listed (also when there are none), 2 usage error, 3 store unavailable',
  async run(context) {
    const projectId = idArgument(stringOption(context, 'project'), '--project')
    const externalId = stringOption(context, 'external-id')
    const paging = pageOptions(context)
    if (externalId !== undefined && paging !== undefined) {
      throw usageError('--external-id finds one identity: it takes no --limit or --cursor.')
    }
    return context.withKeyward(async (keyward) => {
      const page =
        externalId !== undefined
          ? await asUsage(async () => {
              checkExternalId(externalId, ['body', 'external_id'])
              const found = await keyward.findIdentityByExternalId(projectId, externalId)
              return { records: found ? [found] : [], next: null }
            })
          : paging
            ? await keyward.listIdentitiesPage(projectId, paging)
            : await everyPage((query) => keyward.listIdentitiesPage(projectId, query))
      const nextCursor = page.next ? encodeCursor(page.next) : null
      const more = nextCursor
        ? `\nMore identities: keyward identities list --project ${printable(projectId)} --limit ${paging?.limit} --cursor ${nextCursor}`
        : ''
      const text =
        page.records.length === 0
          ? `No identities${externalId === undefined ? '' : ` with external id ${printable(externalId)}`} in project ${printable(projectId)}.${more}`
          : `${table(
              ['ID', 'EXTERNAL ID', 'RATE LIMITS', 'CREDITS', 'METADATA', 'CREATED'],
              page.records.map((identity) => [
                identity.id,
                identity.externalId,
                limitsOf(identity),
                creditsOf(identity),
                identity.metadata ? 'yes' : '-',
                timestamp(identity.createdAt),
              ]),
            )}\n\n${page.records.length} ${page.records.length === 1 ? 'identity' : 'identities'}.${more}`
      context.print(text, {
        identities: await identitiesJson(keyward, page.records),
        next_cursor: nextCursor,
      })
      return EXIT.ok
    })
  },
}

/** `keyward identities get <identity-id>`. */
export const identitiesGetCommand: Command = {
  name: 'identities get',
  summary: 'Show an identity: its external id, metadata, rate limits, credits and roles',
  description: 'Shows the identity with this id. --json prints what the API answers for it.',
  arguments: [ID_ARGUMENT],
  options: [],
  store: true,
  exitCodes: '0 shown, 1 no such identity, 2 usage error, 3 store unavailable',
  async run(context) {
    return context.withKeyward(async (keyward) => {
      const identity = await identityArgument(keyward, context)
      const json = await identityJson(keyward, identity)
      context.print(
        [
          `Identity ${identity.id}`,
          `  External id  ${printable(identity.externalId)}`,
          `  Project      ${printable(identity.projectId)}`,
          `  Rate limits  ${limitsOf(identity)}`,
          `  Credits      ${creditsOf(identity)}`,
          `  Metadata     ${identity.metadata ? printable(JSON.stringify(identity.metadata)) : '-'}`,
          `  Roles        ${json?.roles?.map(printable).join(', ') || '-'}`,
          `  Created      ${timestamp(identity.createdAt)}`,
          `  Updated      ${timestamp(identity.updatedAt)}`,
        ].join('\n'),
        json,
      )
      return EXIT.ok
    })
  },
}

/**
 * `keyward identities update <identity-id> [--metadata JSON | --clear-metadata] [--ratelimit ... | --clear-ratelimits]
 * [--role NAME ... | --clear-roles] [--credits-low-at N|P%|none]`.
 */
export const identitiesUpdateCommand: Command = {
  name: 'identities update',
  summary: "Change an identity's metadata, rate limits, roles or low-credits threshold",
  description:
    'Changes the identity with this id; what is not named stays. --metadata replaces its metadata, ' +
    '--clear-metadata removes it; --ratelimit (repeatable) replaces its rate limits, --clear-ratelimits ' +
    'removes them; --role (repeatable, by name) replaces its roles, --clear-roles takes them all; ' +
    '--credits-low-at sets the threshold of its pool (N credits or P% of the refill amount), none removes it. Every ' +
    'server process sees the change, for every key of the identity, within its revocation bound. Its external id ' +
    'never changes; its credits change through the API.',
  arguments: [ID_ARGUMENT],
  options: [
    { flags: '--metadata <json>', help: 'a JSON object of at most 4096 bytes' },
    { flags: '--clear-metadata', help: 'remove the metadata' },
    {
      flags: '--ratelimit <limit>',
      help: 'NAME:LIMIT/DURATION, e.g. requests:10/1s (repeat it)',
      repeatable: true,
    },
    { flags: '--clear-ratelimits', help: 'remove the rate limits' },
    { ...ROLE_OPTION, help: 'a role of the project, by name (repeat it): replaces its roles' },
    { flags: '--clear-roles', help: 'take every role from the identity' },
    CREDITS_LOW_AT_CHANGE_OPTION,
  ],
  store: true,
  exitCodes: '0 updated, 1 no such identity, 2 usage error, 3 store unavailable',
  async run(context) {
    const metadata = metadataOption(context)
    const ratelimits = rateLimitsOption(context)
    const roles = listOption(context, 'role')
    const lowAt = creditsLowAtOption(stringOption(context, 'credits-low-at'), true) as
      | CreditsLowAt
      | null
      | undefined
    const clear = (name: string) => context.values[name] === true
    if (metadata !== undefined && clear('clear-metadata')) {
      throw usageError('--clear-metadata cannot go with --metadata.')
    }
    if (ratelimits !== undefined && clear('clear-ratelimits')) {
      throw usageError('--clear-ratelimits cannot go with --ratelimit.')
    }
    if (roles !== undefined && clear('clear-roles')) throw usageError('--clear-roles cannot go with --role.')
    const change = {
      ...(metadata !== undefined
        ? { metadata: metadata as IdentityRecord['metadata'] }
        : clear('clear-metadata')
          ? { metadata: null }
          : {}),
      ...(ratelimits !== undefined ? { ratelimits } : clear('clear-ratelimits') ? { ratelimits: [] } : {}),
      ...(roles !== undefined ? { roles } : clear('clear-roles') ? { roles: null } : {}),
      ...(lowAt === undefined ? {} : { creditsLowAt: lowAt }),
    }
    if (Object.keys(change).length === 0) {
      throw usageError(
        'Give at least one of --metadata, --clear-metadata, --ratelimit, --clear-ratelimits, --role, --clear-roles, ' +
          '--credits-low-at.',
      )
    }
    return context.withKeyward(async (keyward) => {
      const identity = await identityArgument(keyward, context)
      const updated = await asUsage(() => keyward.updateIdentity(identity.id, change))
      if (updated === null) throw noSuchIdentity(identity.id)
      context.print(
        `Updated identity ${updated.id} (${printable(updated.externalId)}).`,
        await identityJson(keyward, updated),
      )
      return EXIT.ok
    })
  },
}

/** `keyward identities delete <identity-id> [--revoke-keys]`. */
export const identitiesDeleteCommand: Command = {
  name: 'identities delete',
  summary: 'Delete an identity; with --revoke-keys, revoke its keys with it',
  description:
    'Deletes the identity with this id. While keys belong to it, it is kept (identity_has_keys): move ' +
    'them with keyward keys update --identity, or give --revoke-keys, which revokes its active keys and ' +
    'deletes it in one transaction.',
  arguments: [ID_ARGUMENT],
  options: [{ flags: '--revoke-keys', help: "revoke the identity's keys and delete it, in one step" }],
  store: true,
  exitCodes:
    '0 deleted, 1 no such identity, or it still has keys (without --revoke-keys), 2 usage error, 3 store unavailable',
  async run(context) {
    const revokeKeys = context.values['revoke-keys'] === true
    return context.withKeyward(async (keyward) => {
      const identity = await identityArgument(keyward, context)
      const deleted = await keyward.deleteIdentity(identity.id, { revokeKeys }).catch((error: unknown) => {
        if (!isKeywardError(error) || error.type !== ErrorType.identityHasKeys) throw error
        throw new CliError(
          error.type,
          (error as KeywardError).msg.replace('with revoke_keys', 'with --revoke-keys'),
          EXIT.failed,
        )
      })
      if (deleted === null) throw noSuchIdentity(identity.id)
      const revoked = deleted.revoked.length
      context.print(
        `Deleted identity ${identity.id} (${printable(identity.externalId)})${revoked > 0 ? `, revoked ${plural(revoked, 'key')}` : ''}.`,
        { id: identity.id, deleted: true, revoked_keys: deleted.revoked.map((key) => key.id) },
      )
      return EXIT.ok
    })
  },
}

/** `keyward identities keys <identity-id> [--limit N] [--cursor C]`. */
export const identitiesKeysCommand: Command = {
  name: 'identities keys',
  summary: "List an identity's API keys (prefixes only)",
  description:
    'Lists the API keys of the identity with this id, active or not, newest first, as keyward keys list ' +
    'shows them: all of them, or one page with --limit or --cursor.',
  arguments: [ID_ARGUMENT],
  options: [
    { flags: '--limit <n>', help: `one page of at most n keys, 1 to ${MAX_PAGE_LIMIT} (default: every key)` },
    { flags: '--cursor <cursor>', help: 'the page after this cursor (from a previous page)' },
  ],
  store: true,
  exitCodes: '0 listed (also when there are none), 1 no such identity, 2 usage error, 3 store unavailable',
  async run(context) {
    const paging = pageOptions(context)
    return context.withKeyward(async (keyward) => {
      const identity = await identityArgument(keyward, context)
      const page = paging
        ? await keyward.listIdentityKeys(identity.id, paging)
        : await everyPage((query) => keyward.listIdentityKeys(identity.id, query))
      const { records } = page
      const nextCursor = page.next ? encodeCursor(page.next) : null
      const more = nextCursor
        ? `\nMore keys: keyward identities keys ${identity.id} --limit ${paging?.limit} --cursor ${nextCursor}`
        : ''
      const who = `identity ${identity.id} (${printable(identity.externalId)})`
      const text =
        records.length === 0
          ? `No keys of ${who}.${more}`
          : `${keyTable(keyward, records)}\n\n${plural(records.length, 'key')} of ${who}, ${records.filter((r) => r.active).length} active.${more}`
      context.print(text, {
        keys: (await keyward.withRoleNames(records)).map((record) =>
          keyToJson(record, keyward.isRotationDue(record)),
        ),
        next_cursor: nextCursor,
      })
      return EXIT.ok
    })
  },
}
