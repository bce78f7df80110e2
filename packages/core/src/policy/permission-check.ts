import {
  formatQuery,
  grantsOf,
  type PermissionQuery,
  PermissionQueryError,
  parsePermissionQuery,
  type QueryNode,
  refusedText,
} from './query.js'

/**
 * What a route requires of a key's permissions, in the first form Keyward took: every one of
 * `allOf`, or at least one of `anyOf`. A {@link PermissionQuery} says the same and more.
 *
 * @example
 * ```ts
 * const rule: PermissionRule = { allOf: ['generations:write'] }
 * ```
 */
export type PermissionRule = { readonly allOf: readonly string[] } | { readonly anyOf: readonly string[] }

/**
 * A key's permissions resolved for checks, once per record: the names it was granted (its own and
 * its roles'), wildcards among them as written (`reports:*`).
 */
export interface Granted {
  /** `*` is among them: every permission. */
  readonly all: boolean
  /** Some `prefix:*` is among them. */
  readonly wild: boolean
  readonly names: ReadonlySet<string>
}

/** @internal Resolves granted names (a key's own and its roles') into a {@link Granted}. */
export function grantedOf(names: Iterable<string>): Granted {
  const set = new Set(names)
  let wild = false
  for (const name of set) if (name.endsWith(':*')) wild = true
  return { all: set.has('*'), wild, names: set }
}

type Test = (granted: Granted) => boolean

const holds = (g: Granted, name: string) =>
  g.all || g.names.has(name) || (g.wild && grantsOf(name).some((grant) => g.names.has(grant)))

// The slow reading of a query, for a refusal's message.
const satisfied = (node: QueryNode, g: Granted): boolean =>
  node.op === 'name'
    ? holds(g, node.name)
    : node.op === 'and'
      ? node.items.every((item) => satisfied(item, g))
      : node.items.some((item) => satisfied(item, g))

function compileNode(node: QueryNode): Test {
  if (node.op === 'name') {
    const { name } = node
    const prefixes = grantsOf(name).slice(2)
    if (prefixes.length === 0) return (g) => g.all || g.names.has(name)
    return (g) => {
      if (g.all || g.names.has(name)) return true
      if (!g.wild) return false
      for (const prefix of prefixes) if (g.names.has(prefix)) return true
      return false
    }
  }
  const tests = node.items.map(compileNode)
  if (node.op === 'and') {
    return (g) => {
      for (const test of tests) if (!test(g)) return false
      return true
    }
  }
  return (g) => {
    for (const test of tests) if (test(g)) return true
    return false
  }
}

/**
 * A permission query checked and compiled once (when a guard is built): `test` answers whether a
 * key's resolved permissions satisfy it, `missing` what they lack.
 */
export class PermissionCheck {
  /** @internal */
  readonly test: Test
  /** The query in its string form, groups of another operator in parentheses. */
  readonly text: string

  /** @internal */
  constructor(readonly tree: QueryNode) {
    this.test = compileNode(tree)
    this.text = formatQuery(tree)
  }

  /** @internal What `granted` lacks of the query: the failing terms of an `and`, every alternative of an `or`. */
  missing(granted: Granted, node: QueryNode = this.tree): QueryNode | null {
    if (satisfied(node, granted)) return null
    if (node.op !== 'and') return node
    const items = node.items.flatMap((item) => this.missing(granted, item) ?? [])
    return items.length === 1 ? items[0]! : { op: 'and', items }
  }
}

/**
 * What a route may require of a key's permissions: a {@link PermissionRule}, a
 * {@link PermissionQuery}, or a {@link PermissionCheck} compiled from one.
 *
 * @example
 * ```ts
 * const required: PermissionRequirement = 'reports:read and (billing:read or admin)'
 * ```
 */
export type PermissionRequirement = PermissionRule | PermissionQuery | PermissionCheck

const ruleQuery = (rule: PermissionRule): PermissionQuery =>
  'allOf' in rule ? { and: [...rule.allOf] } : { or: [...(rule as { anyOf: readonly string[] }).anyOf] }

const isRule = (value: object): value is PermissionRule =>
  Object.keys(value).length === 1 && ('allOf' in value || 'anyOf' in value)

/**
 * @internal Checks and compiles what a route requires: a {@link PermissionRule} or a
 * {@link PermissionQuery}, every name among `declared` (`null`: any name). Throws
 * `PermissionQueryError` (from `query.ts`) at the first problem.
 */
export function compilePermissions(
  value: PermissionRequirement,
  declared: ReadonlySet<string> | null,
): PermissionCheck {
  if (value instanceof PermissionCheck) return value
  if (typeof value !== 'object' || value === null || !isRule(value)) {
    return new PermissionCheck(parsePermissionQuery(value, declared))
  }
  try {
    return new PermissionCheck(parsePermissionQuery(ruleQuery(value), declared))
  } catch (error) {
    // Located in the rule as written: `allOf[2]`, not the query's `and[2]`.
    if (!(error instanceof PermissionQueryError)) throw error
    const [, ...rest] = error.path
    const reason = error.reason.replace(
      /^(and|or) must be/,
      (_, op) => `${op === 'and' ? 'allOf' : 'anyOf'} must be`,
    )
    throw new PermissionQueryError(
      reason,
      ['allOf' in value ? 'allOf' : 'anyOf', ...rest],
      error.column,
      error.kind,
    )
  }
}

const compiledRules = new WeakMap<object, PermissionCheck>()
const compiledStrings = new Map<string, PermissionCheck>()
const MAX_COMPILED_STRINGS = 256

function compileAtCallTime(value: PermissionRule | PermissionQuery): PermissionCheck {
  try {
    return compilePermissions(value, null)
  } catch (error) {
    if (!(error instanceof PermissionQueryError)) throw error
    throw new TypeError(`The required permissions are ${refusedText(error)}.`)
  }
}

/**
 * @internal What a requirement given at call time (`authenticate`, `keyAccessProblem`) requires,
 * compiled once per object: names are not checked against the declared ones there, as before
 * queries (a name nobody holds is refused to every key).
 */
export function permissionCheckOf(value: PermissionRequirement): PermissionCheck {
  if (value instanceof PermissionCheck) return value
  if (typeof value === 'string') {
    let known = compiledStrings.get(value)
    if (!known) {
      known = compileAtCallTime(value)
      if (compiledStrings.size >= MAX_COMPILED_STRINGS) compiledStrings.clear()
      compiledStrings.set(value, known)
    }
    return known
  }
  let known = compiledRules.get(value)
  if (!known) {
    known = compileAtCallTime(value)
    compiledRules.set(value, known)
  }
  return known
}

/**
 * @internal The message of a refusal: the permission missing, one of several, or the part of the
 * query the key lacks.
 */
export function missingMessage(missing: QueryNode): string {
  if (missing.op === 'name') return `The API key lacks the permission ${missing.name}.`
  if (missing.op === 'or' && missing.items.every((item) => item.op === 'name')) {
    return `The API key lacks a permission this route requires: one of ${missing.items.map((item) => formatQuery(item)).join(', ')}.`
  }
  return `The API key lacks permissions this route requires: ${formatQuery(missing)}.`
}
