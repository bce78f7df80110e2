import {
  type CreditChange,
  type IdentityRecord,
  identityToJson,
  isKeywardError,
  type KeyRecord,
  type Keyward,
  keyToJson,
} from '@keyward/core'
import { type Command, idArgument, stringOption } from '../command.js'
import { CliError, EXIT, usageError } from '../exit.js'
import { printable } from '../output.js'

const REFILL = /^(\d{1,13}):(daily|monthly)(?::(\d{1,2}))?$/

/**
 * `--refill AMOUNT:daily`, `AMOUNT:monthly:DAY` or `none`, as the service takes it (its 422s name
 * what is wrong, e.g. a day of 32).
 */
export function refillOption(text: string | undefined): unknown {
  if (text === undefined) return undefined
  if (text === 'none') return null
  const match = REFILL.exec(text)
  if (!match)
    throw usageError('--refill must be AMOUNT:daily, AMOUNT:monthly:DAY or none, e.g. 1000:monthly:1.')
  const [, amount, interval, day] = match
  return interval === 'daily'
    ? { amount: Number(amount), interval, ...(day === undefined ? {} : { day: Number(day) }) }
    : { amount: Number(amount), interval, day: day === undefined ? 1 : Number(day) }
}

/**
 * A low-credits threshold given to `--credits-low-at`: `N` credits, or `P%` of the refill amount
 * (the service checks the range and what it needs).
 */
export const CREDITS_LOW_AT_OPTION = {
  flags: '--credits-low-at <n>',
  help: 'with --credits: low at N credits, or at P% of the refill amount (e.g. 10%), for credits.low',
}

/** `--credits-low-at` of an update: a new threshold, or `none` to remove it. */
export const CREDITS_LOW_AT_CHANGE_OPTION = {
  flags: '--credits-low-at <n>',
  help: 'low at N credits, or at P% of the refill amount (e.g. 10%), for credits.low; none removes it',
}

/**
 * The threshold `--credits-low-at` gives, or `undefined` without it; with `none` allowed (an
 * update), `null` for none.
 */
export function creditsLowAtOption(text: string | undefined, allowNone = false): unknown {
  if (text === undefined) return undefined
  if (allowNone && text === 'none') return null
  const match = /^(\d{1,13})(%?)$/.exec(text)
  if (!match)
    throw usageError(
      `--credits-low-at must be a whole number of credits, or a percent such as 10%${allowNone ? ', or none' : ''}.`,
    )
  return match[2] === '%' ? { percent: Number(match[1]) } : { remaining: Number(match[1]) }
}

/** A whole number of credits given to an option, or `unlimited` where `allowUnlimited`. */
export function creditsOption(text: string, flag: string, allowUnlimited = false): number | null {
  if (allowUnlimited && text === 'unlimited') return null
  if (!/^\d{1,13}$/.test(text)) {
    throw usageError(`${flag} must be a whole number of credits${allowUnlimited ? ' or unlimited' : ''}.`)
  }
  return Number(text)
}

const change = (
  set: string | undefined,
  add: string | undefined,
  subtract: string | undefined,
  refill: unknown,
) => {
  const given = [set, add, subtract].filter((value) => value !== undefined)
  if (given.length !== 1) throw usageError('Give exactly one of --set N|unlimited, --add N or --subtract N.')
  if (refill !== undefined && set === undefined) throw usageError('--refill goes with --set only.')
  if (set !== undefined) {
    const remaining = creditsOption(set, '--set', true)
    return { op: 'set', remaining, ...(refill === undefined ? {} : { refill }) } as CreditChange
  }
  return add !== undefined
    ? ({ op: 'add', amount: creditsOption(add, '--add') as number } as const)
    : ({ op: 'subtract', amount: creditsOption(subtract as string, '--subtract') as number } as const)
}

/** Whose credits a command changes: an API key's own, or an identity's pool. */
interface Holder {
  /** The command's first word: `keys` or `identities`. */
  readonly group: string
  /** The argument, and what the words call the holder: in full, and in the line that answers. */
  readonly argument: string
  readonly word: string
  readonly short: string
  readonly listedBy: string
  /** The change, or `null` when there is no such holder. */
  change(
    keyward: Keyward,
    id: string,
    wanted: CreditChange,
  ): Promise<{ id: string; remaining?: number | null } | null>
  json(changed: never): unknown
  readonly description: string
}

function creditsCommandOf(holder: Holder): Command {
  const { group, argument, word, listedBy } = holder
  const notFound = (id: string) =>
    new CliError('not_found', `No ${word} with id ${printable(id)}.`, EXIT.failed)
  return {
    name: `${group} credits`,
    summary: `Set, add to or subtract from ${holder.description}`,
    description:
      `Changes the credits of the ${word} with this id, atomically in the store: --set gives the balance ` +
      '(unlimited: no limit) and, with --refill AMOUNT:daily, AMOUNT:monthly:DAY or none, its refill; ' +
      '--add and --subtract move it (a subtraction below zero is refused and changes nothing). ' +
      'Credits that server processes leased are spent already from its viewpoint.',
    arguments: [[argument, `the id of the ${word} (from ${listedBy})`]],
    options: [
      { flags: '--set <n>', help: 'the new balance, or unlimited' },
      { flags: '--add <n>', help: 'credits to add' },
      { flags: '--subtract <n>', help: 'credits to take away' },
      { flags: '--refill <rule>', help: 'with --set: AMOUNT:daily, AMOUNT:monthly:DAY (1-31) or none' },
    ],
    store: true,
    exitCodes: `0 changed, 1 no such ${word}, 2 usage error (a subtraction below zero too), 3 store unavailable`,
    async run(context) {
      const id = idArgument(context.positionals[0], `<${argument}>`)
      const wanted = change(
        stringOption(context, 'set'),
        stringOption(context, 'add'),
        stringOption(context, 'subtract'),
        refillOption(stringOption(context, 'refill')),
      )
      return context.withKeyward(async (keyward: Keyward) => {
        let updated: Awaited<ReturnType<Holder['change']>>
        try {
          updated = await holder.change(keyward, id, wanted)
        } catch (error) {
          if (isKeywardError(error) && error.status === 422) throw usageError(error.msg)
          throw error
        }
        if (!updated) throw notFound(id)
        const left = updated.remaining == null ? 'unlimited' : String(updated.remaining)
        context.print(
          `Credits of ${word === 'API key' ? 'key' : word} ${updated.id}: ${left}.`,
          holder.json(updated as never),
        )
        return EXIT.ok
      })
    },
  }
}

/** `keyward keys credits <key-id> (--set N|unlimited [--refill RULE] | --add N | --subtract N)`. */
export const creditsCommand: Command = creditsCommandOf({
  group: 'keys',
  argument: 'key-id',
  word: 'API key',
  short: 'key',
  listedBy: 'keyward keys list',
  description: "an API key's credits",
  change: async (keyward, id, wanted) => {
    if ((await keyward.findKey(id))?.ownerType !== 'project') return null
    const updated = await keyward.changeCredits(id, wanted)
    // Its roles by name, as every other command prints a key.
    return updated && (await keyward.withRoleNames([updated]))[0]!
  },
  json: (record: KeyRecord) => keyToJson(record),
})

/**
 * `keyward identities credits <identity-id> (--set N|unlimited [--refill RULE] | --add N |
 * --subtract N)`: the credit pool every key of the identity spends from.
 */
export const identityCreditsCommand: Command = creditsCommandOf({
  group: 'identities',
  argument: 'identity-id',
  word: 'identity',
  short: 'identity',
  listedBy: 'keyward identities list',
  description: "an identity's credit pool, which every key of the identity spends from",
  change: async (keyward, id, wanted) => {
    const updated = await keyward.changeIdentityCredits(id, wanted)
    // Its roles by name, as every other command prints an identity.
    return updated && (await keyward.withRoleNames([updated]))[0]!
  },
  json: (identity: IdentityRecord) => identityToJson(identity),
})
