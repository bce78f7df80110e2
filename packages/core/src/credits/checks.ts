import { KeywardError } from '../errors/error.js'
import { checkKnownFields, optionNames } from '../errors/extra-fields.js'
import { ErrorType } from '../errors/types.js'
import { checkInteger } from '../service/lifecycle.js'
import { MAX_COST, MAX_CREDITS } from './model.js'
import type { CreditChange, CreditRefill } from './types.js'

const BODY = ['body'] as const
const REFILL_FIELDS = optionNames<CreditRefill>({ amount: true, interval: true, day: true })

const notObject = (loc: readonly string[]) =>
  new KeywardError(ErrorType.dictType, 'Input should be a JSON object.', loc)

/**
 * @internal A refill rule as given (422 at `["body", "refill", field]`, an unknown field
 * `extra_forbidden`), or `null` for none.
 */
export function checkRefill(
  value: unknown,
  loc: readonly string[] = [...BODY, 'refill'],
): CreditRefill | null {
  if (value === null || value === undefined) return null
  if (typeof value !== 'object' || Array.isArray(value)) throw notObject(loc)
  checkKnownFields(value, REFILL_FIELDS, loc)
  const given = value as Record<string, unknown>
  const amount = checkInteger(given.amount, 1, MAX_CREDITS, [...loc, 'amount'])
  if (given.interval === 'daily') {
    if (given.day !== undefined && given.day !== null) {
      throw new KeywardError(ErrorType.valueError, 'A daily refill takes no `day`.', [...loc, 'day'])
    }
    return { amount, interval: 'daily' }
  }
  if (given.interval === 'monthly') {
    const day = given.day === undefined ? 1 : checkInteger(given.day, 1, 31, [...loc, 'day'])
    return { amount, interval: 'monthly', day }
  }
  throw new KeywardError(ErrorType.valueError, 'Input should be "daily" or "monthly".', [...loc, 'interval'])
}

/** @internal A key's initial credits (`remaining` and `refill`) as given at creation; 422 as the fields say. */
export function checkNewCredits(
  remaining: unknown,
  refill: unknown,
  field = 'remaining',
): { remaining: number | null; refill: CreditRefill | null } {
  const balance =
    remaining === null || remaining === undefined
      ? null
      : checkInteger(remaining, 0, MAX_CREDITS, [...BODY, field])
  const rule = checkRefill(refill)
  if (balance === null && rule !== null) {
    throw new KeywardError(
      ErrorType.valueError,
      `A refill needs a credit limit: give \`${field}\` too (0 to start empty).`,
      [...BODY, 'refill'],
    )
  }
  return { remaining: balance, refill: rule }
}

/** @internal A change of credits as given (`{"op","amount","refill"?}`); 422 at the faulty field. */
export function checkCreditChange(value: unknown): CreditChange {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw notObject(BODY)
  const given = value as Record<string, unknown>
  const op = given.op
  if (op === 'set') {
    if (given.amount === undefined) {
      throw new KeywardError(ErrorType.missing, 'Field required (null for unlimited).', [...BODY, 'amount'])
    }
    const { remaining, refill } = checkNewCredits(given.amount, given.refill, 'amount')
    return given.refill === undefined ? { op, remaining } : { op, remaining, refill }
  }
  if (op === 'add' || op === 'subtract') {
    if (given.refill !== undefined) {
      throw new KeywardError(ErrorType.valueError, 'Only "set" changes the refill.', [...BODY, 'refill'])
    }
    return { op, amount: checkInteger(given.amount, 1, MAX_CREDITS, [...BODY, 'amount']) }
  }
  throw new KeywardError(
    op === undefined ? ErrorType.missing : ErrorType.valueError,
    op === undefined ? 'Field required.' : 'Input should be "set", "add" or "subtract".',
    [...BODY, 'op'],
  )
}

/** @internal A route's cost per request, checked when its guard is built. */
export function checkCost(value: unknown, who: string): number {
  if (value === undefined) return 1
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_COST) {
    throw new TypeError(`${who}: option \`cost\` must be an integer from 0 to ${MAX_COST}.`)
  }
  return value
}
