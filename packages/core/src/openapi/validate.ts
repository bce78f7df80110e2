import type { Static, TObject, TSchema } from '@sinclair/typebox'
import { ValueErrorType } from '@sinclair/typebox/errors'
import { Value } from '@sinclair/typebox/value'
import { KeywardError } from '../errors/error.js'
import { checkKnownFields } from '../errors/extra-fields.js'
import { ErrorType } from '../errors/types.js'
import { parseDateTime } from '../service/lifecycle.js'
import { checkName } from '../service/name.js'
import { NameSchema } from './schemas.js'

type Problem = { readonly type: ErrorType; readonly msg: (schema: Record<string, unknown>) => string }

// TypeBox's error kinds, in the specification's (pydantic's) words.
const PROBLEMS: Partial<Record<ValueErrorType, Problem>> = {
  [ValueErrorType.String]: { type: ErrorType.stringType, msg: () => 'Input should be a valid string.' },
  [ValueErrorType.StringMinLength]: {
    type: ErrorType.stringTooShort,
    msg: (s) => `String should have at least ${s.minLength} characters.`,
  },
  [ValueErrorType.StringMaxLength]: {
    type: ErrorType.stringTooLong,
    msg: (s) => `String should have at most ${s.maxLength} characters.`,
  },
  [ValueErrorType.StringPattern]: {
    type: ErrorType.stringPatternMismatch,
    msg: (s) => `String should match the pattern ${s.pattern}.`,
  },
  [ValueErrorType.Integer]: { type: ErrorType.intType, msg: () => 'Input should be a valid integer.' },
  [ValueErrorType.IntegerMinimum]: {
    type: ErrorType.greaterThanEqual,
    msg: (s) => `Input should be greater than or equal to ${s.minimum}.`,
  },
  [ValueErrorType.IntegerMaximum]: {
    type: ErrorType.lessThanEqual,
    msg: (s) => `Input should be less than or equal to ${s.maximum}.`,
  },
  [ValueErrorType.Object]: { type: ErrorType.dictType, msg: () => 'Input should be an object.' },
}

// Names count code points, as JSON Schema does (TypeBox counts UTF-16 units): `checkName` checks
// them, up to the schema's `maxLength` (a key's name 100, an identity's `external_id` 255). A name
// schema is known by its pattern (`Type.Optional` copies the schema object).
const isName = (schema: TSchema) => schema.pattern === NameSchema.pattern

function checkNameField(schema: TSchema, value: unknown, loc: readonly string[]): boolean {
  const name = isName(schema) ? schema : (schema.anyOf as TSchema[] | undefined)?.find(isName)
  if (name === undefined) return false
  const nullable = name !== schema
  if (checkName(value, loc, name.maxLength) === null && !nullable) {
    throw new KeywardError(ErrorType.stringType, 'Input should be a valid string.', loc)
  }
  return true
}

// The other member of a nullable field (`Type.Union([schema, Type.Null()])`), else `undefined`.
function nullableMember(schema: TSchema): TSchema | undefined {
  const members = schema.anyOf as TSchema[] | undefined
  if (members?.length !== 2 || !members.some((member) => member.type === 'null')) return undefined
  return members.find((member) => member.type !== 'null')
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

// The strings of a union of string literals (`Type.Union([Type.Literal('a'), ...])`), else `undefined`.
function literalsOf(schema: TSchema): readonly string[] | undefined {
  const members = schema.anyOf as TSchema[] | undefined
  if (!members?.every((member) => typeof member.const === 'string')) return undefined
  return members.map((member) => member.const as string)
}

// `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
function choices(values: readonly string[]): string {
  const quoted = values.map((value) => `"${value}"`)
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`
}

function checkField(schema: TSchema, value: unknown, loc: readonly string[]): void {
  if (checkNameField(schema, value, loc)) return
  const member = nullableMember(schema)
  if (member) {
    if (value !== null) checkField(member, value, loc)
    return
  }
  // An object's fields are checked as a body's are, each error located at its own field
  // (`["body", "refill", "day"]`, not `["body", "refill"]`).
  if (schema.type === 'object' && schema.properties && isObject(value)) {
    checkBody(schema as TObject, value, loc)
    return
  }
  // One of a few strings (`"daily"` or `"monthly"`): the error names them.
  const literals = literalsOf(schema)
  if (literals) {
    if (literals.includes(value as string)) return
    throw new KeywardError(ErrorType.valueError, `Input should be ${choices(literals)}.`, loc)
  }
  // A list's entries are the key service's to check: it locates a faulty one by its index.
  if (schema.type === 'array') {
    if (Array.isArray(value)) return
    throw new KeywardError(ErrorType.listType, 'Input should be a valid list.', loc)
  }
  // JSON Schema's `date-time`: ISO 8601 with an offset, read as the key routes read it.
  if (schema.format === 'date-time' && typeof value === 'string') {
    parseDateTime(value, loc)
    return
  }
  // Check first: far cheaper than collecting errors, which only a refused body needs.
  if (Value.Check(schema, value)) return
  const error = Value.Errors(schema, value).First()
  if (error === undefined) return
  const problem = PROBLEMS[error.type]
  const type = problem?.type ?? (schema.type === 'object' ? ErrorType.dictType : ErrorType.stringType)
  throw new KeywardError(
    type,
    problem?.msg(error.schema as Record<string, unknown>) ?? `${error.message}.`,
    loc,
  )
}

/**
 * Checks a JSON object body against one of the API's request schemas and returns it typed. A
 * field the schema does not name is refused first, 422 `extra_forbidden` with the nearest known
 * name (so a typo never drops a policy), in nested objects too, unless the schema is a free-form
 * object (`additionalProperties: true`, as metadata); then each field in the schema's order. An
 * absent body counts as `{}`, or is `missing` at `loc` when the schema requires a field. Throws a
 * 422 {@link KeywardError} at the first problem, located at `["body", field]` (`extra_forbidden`,
 * `missing`, `string_type`, `string_too_long`, `int_type`, ...).
 *
 * @example
 * ```ts
 * const body = await readJsonObjectBody(request)
 * const { name } = checkBody(CreateProjectBodySchema, body?.value) // 422 `missing` at ["body", "name"]
 * checkBody(CreateProjectBodySchema, { nme: 'x' }) // 422 `extra_forbidden` at ["body", "nme"]: did you mean `name`?
 * ```
 */
export function checkBody<T extends TObject>(
  schema: T,
  body: Readonly<Record<string, unknown>> | undefined,
  loc: readonly string[] = ['body'],
): Static<T> {
  const required = new Set(schema.required ?? [])
  if (body === undefined && required.size > 0)
    throw new KeywardError(ErrorType.missing, 'Field required.', loc)
  const value = body ?? {}
  if (schema.additionalProperties !== true) checkKnownFields(value, schema.properties, loc)
  for (const [field, fieldSchema] of Object.entries(schema.properties)) {
    const at = [...loc, field]
    if (value[field] === undefined) {
      if (required.has(field)) throw new KeywardError(ErrorType.missing, 'Field required.', at)
      continue
    }
    checkField(fieldSchema, value[field], at)
  }
  return value as Static<T>
}
