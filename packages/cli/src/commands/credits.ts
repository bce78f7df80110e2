import { type CreditChange, isKeywardError, type Keyward, keyToJson } from '@keyward/core'
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

/** `keyward keys credits <key-id> (--set N|unlimited [--refill RULE] | --add N | --subtract N)`. */
export const creditsCommand: Command = {
  name: 'keys credits',
  summary: "Set, add to or subtract from an API key's credits",
  description:
    'Changes the credits of the API key with this id, atomically in the store: --set gives the balance ' +
    '(unlimited: no limit) and, with --refill AMOUNT:daily, AMOUNT:monthly:DAY or none, its refill; ' +
    '--add and --subtract move it (a subtraction below zero is refused and changes nothing). ' +
    "Credits that server processes leased are spent already from the key's viewpoint.",
  arguments: [['key-id', 'the id of the key (from keyward keys list)']],
  options: [
    { flags: '--set <n>', help: 'the new balance, or unlimited' },
    { flags: '--add <n>', help: 'credits to add' },
    { flags: '--subtract <n>', help: 'credits to take away' },
    { flags: '--refill <rule>', help: 'with --set: AMOUNT:daily, AMOUNT:monthly:DAY (1-31) or none' },
  ],
  store: true,
  exitCodes:
    '0 changed, 1 no such API key, 2 usage error (a subtraction below zero too), 3 store unavailable',
  async run(context) {
    const keyId = idArgument(context.positionals[0], '<key-id>')
    const wanted = change(
      stringOption(context, 'set'),
      stringOption(context, 'add'),
      stringOption(context, 'subtract'),
      refillOption(stringOption(context, 'refill')),
    )
    return context.withKeyward(async (keyward: Keyward) => {
      const current = await keyward.findKey(keyId)
      if (current?.ownerType !== 'project') {
        throw new CliError('not_found', `No API key with id ${printable(keyId)}.`, EXIT.failed)
      }
      let updated: Awaited<ReturnType<Keyward['changeCredits']>>
      try {
        updated = await keyward.changeCredits(keyId, wanted)
      } catch (error) {
        if (isKeywardError(error) && error.status === 422) throw usageError(error.msg)
        throw error
      }
      if (!updated) throw new CliError('not_found', `No API key with id ${printable(keyId)}.`, EXIT.failed)
      const left = updated.remaining == null ? 'unlimited' : String(updated.remaining)
      context.print(`Credits of key ${updated.id}: ${left}.`, keyToJson(updated))
      return EXIT.ok
    })
  },
}
