/**
 * Permission queries: what a route requires of a key's permissions, as nested `and`/`or` groups
 * of permission names, written as objects or as a string (`reports:read and (billing:read or
 * admin)`). A query is checked and compiled once, when its guard is built; a key's permissions
 * are resolved once per record (see `policies.ts`), so a check is a few set lookups.
 */

/**
 * A permission query: a permission's name, `{ and: [...] }` (every one), `{ or: [...] }` (at
 * least one), or a string in the query language: names joined by `and` and `or`, grouped by
 * parentheses, `and` binding tighter than `or` (`a or b and c` is `a or (b and c)`). A string
 * nested in an object is read the same way. At most 8 levels deep (each object and each pair of
 * parentheses is one), at most 1000 characters per string, and only permissions the service
 * declares. Wildcards (`reports:*`, `*`) may be granted to a key, never required.
 *
 * @example
 * ```ts
 * const query: PermissionQuery = 'reports:read and (billing:read or admin)'
 * const same: PermissionQuery = { and: ['reports:read', { or: ['billing:read', 'admin'] }] }
 * ```
 */
export type PermissionQuery =
  | string
  | { readonly and: readonly PermissionQuery[] }
  | { readonly or: readonly PermissionQuery[] }

/** The most characters of a permission query's string form. */
export const MAX_QUERY_LENGTH = 1000

/** The most levels of a permission query: each `{ and }`/`{ or }` object and each pair of parentheses is one. */
export const MAX_QUERY_DEPTH = 8

/** The most permission names one query holds. */
export const MAX_QUERY_TERMS = 1000

/** A checked query: a name, or a group of two or more (nested groups of the same operator flattened). */
export type QueryNode =
  | { readonly op: 'name'; readonly name: string }
  | { readonly op: 'and' | 'or'; readonly items: readonly QueryNode[] }

/**
 * Why a permission query was refused, and where: `path` into the object form (`['and', 1]`),
 * `column` (from 1) in a string. Guards turn it into a `TypeError` when they are built; the
 * verification endpoint into a 422.
 *
 * @example
 * ```ts
 * try {
 *   projectGuard(keyward, { permissions: 'reports:read and (billing:read' })
 * } catch (error) {
 *   console.error((error as Error).message) // ... at character 30: expected "and", "or" or ")" ...
 * }
 * ```
 */
export class PermissionQueryError extends Error {
  constructor(
    readonly reason: string,
    readonly path: readonly (string | number)[],
    readonly column: number | undefined,
    /** `too_long`: a string over 1000 characters; `undeclared`: a name the service does not declare. */
    readonly kind: 'malformed' | 'too_long' | 'undeclared' = 'malformed',
  ) {
    super(placeOf(path, column) + reason)
    this.name = 'PermissionQueryError'
  }
}

// `at .and[1].or[0], at character 3: `, or nothing for the query as a whole.
function placeOf(path: readonly (string | number)[], column: number | undefined): string {
  const steps = path.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('')
  const places = [
    ...(steps ? [`at ${steps}`] : []),
    ...(column !== undefined ? [`at character ${column}`] : []),
  ]
  return places.length > 0 ? `${places.join(', ')}: ` : ''
}

/** @internal `refused at character 3: ...`, or `refused: ...` for the query as a whole. */
export const refusedText = (error: PermissionQueryError): string =>
  `refused${error.path.length > 0 || error.column !== undefined ? ' ' : ': '}${error.message}`

const WORD = /[A-Za-z0-9_.:*-]/
const OPERATORS: Readonly<Record<string, 'and' | 'or'>> = { and: 'and', AND: 'and', or: 'or', OR: 'or' }

type Token =
  | { readonly kind: '(' | ')' | 'end'; readonly at: number }
  | { readonly kind: 'and' | 'or'; readonly at: number }
  | { readonly kind: 'name'; readonly at: number; readonly text: string }

function tokenize(text: string, path: readonly (string | number)[]): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i++
    else if (c === '(' || c === ')') tokens.push({ kind: c, at: i++ })
    else if (WORD.test(c)) {
      const start = i
      while (i < text.length && WORD.test(text[i]!)) i++
      const word = text.slice(start, i)
      const op = OPERATORS[word]
      tokens.push(op ? { kind: op, at: start } : { kind: 'name', at: start, text: word })
    } else {
      throw new PermissionQueryError(
        `unexpected character ${JSON.stringify(c)}: a query holds permission names, and, or and parentheses`,
        path,
        i + 1,
      )
    }
  }
  tokens.push({ kind: 'end', at: text.length })
  return tokens
}

const describe = (token: Token) =>
  token.kind === 'end' ? 'the end' : token.kind === 'name' ? JSON.stringify(token.text) : `"${token.kind}"`

/** A node as written, before names are checked: leaves keep their position. */
type Written =
  | {
      readonly op: 'name'
      readonly name: string
      readonly path: readonly (string | number)[]
      readonly column: number
    }
  | { readonly op: 'and' | 'or'; readonly items: readonly Written[] }

/**
 * Parses a query's string form into its tree, checking only its syntax, length and depth
 * (`depth` levels are already used by the objects around it). Throws {@link PermissionQueryError}.
 */
function parseString(text: string, path: readonly (string | number)[], depth: number): Written {
  if (text.length > MAX_QUERY_LENGTH) {
    throw new PermissionQueryError(
      `a query has at most ${MAX_QUERY_LENGTH} characters, this one ${text.length}`,
      path,
      MAX_QUERY_LENGTH + 1,
      'too_long',
    )
  }
  const tokens = tokenize(text, path)
  let next = 0
  const peek = () => tokens[next]!
  const fail = (token: Token, expected: string): never => {
    throw new PermissionQueryError(`expected ${expected}, found ${describe(token)}`, path, token.at + 1)
  }
  const group = (level: number): Written => {
    const alternatives = [conjunction(level)]
    while (peek().kind === 'or') {
      next++
      alternatives.push(conjunction(level))
    }
    return alternatives.length === 1 ? alternatives[0]! : { op: 'or', items: alternatives }
  }
  const conjunction = (level: number): Written => {
    const terms = [atom(level)]
    while (peek().kind === 'and') {
      next++
      terms.push(atom(level))
    }
    return terms.length === 1 ? terms[0]! : { op: 'and', items: terms }
  }
  const atom = (level: number): Written => {
    const token = tokens[next++]!
    if (token.kind === 'name') return { op: 'name', name: token.text, path, column: token.at + 1 }
    if (token.kind !== '(') return fail(token, 'a permission name or "("')
    if (level + 1 > MAX_QUERY_DEPTH) {
      throw new PermissionQueryError(
        `a query is at most ${MAX_QUERY_DEPTH} levels deep (each pair of parentheses and each and/or object is one)`,
        path,
        token.at + 1,
      )
    }
    const inner = group(level + 1)
    const close = tokens[next++]!
    if (close.kind !== ')') fail(close, `"and", "or" or ")" to close the "(" at character ${token.at + 1}`)
    return inner
  }
  const tree = group(depth)
  const last = peek()
  if (last.kind !== 'end')
    fail(last, last.kind === ')' ? 'the end: this ")" closes nothing' : '"and", "or" or the end')
  return tree
}

const GROUPS = ['and', 'or'] as const

function readWritten(query: unknown, path: (string | number)[], depth: number): Written {
  if (typeof query === 'string') return parseString(query, path, depth)
  if (typeof query !== 'object' || query === null || Array.isArray(query)) {
    throw new PermissionQueryError(
      'expected a permission name, a string query, { and: [...] } or { or: [...] }',
      path,
      undefined,
    )
  }
  const keys = Object.keys(query)
  const op = GROUPS.find((name) => keys.length === 1 && keys[0] === name)
  if (op === undefined) {
    throw new PermissionQueryError(
      `expected one field, and or or (or a rule's allOf or anyOf), found ${keys.length === 0 ? 'none' : keys.map((key) => JSON.stringify(key)).join(', ')}`,
      path,
      undefined,
    )
  }
  if (depth + 1 > MAX_QUERY_DEPTH) {
    throw new PermissionQueryError(
      `a query is at most ${MAX_QUERY_DEPTH} levels deep (each pair of parentheses and each and/or object is one)`,
      path,
      undefined,
    )
  }
  const list = (query as Record<string, unknown>)[op]
  if (!Array.isArray(list) || list.length === 0) {
    throw new PermissionQueryError(`${op} must be a list of at least one query`, [...path, op], undefined)
  }
  const items = list.map((item, index) => readWritten(item, [...path, op, index], depth + 1))
  return items.length === 1 ? items[0]! : { op, items }
}

/** The grants that satisfy a required name: itself, `*`, and each `prefix:*` above it. */
export function grantsOf(name: string): readonly string[] {
  const grants = [name, '*']
  for (let i = name.indexOf(':'); i !== -1; i = name.indexOf(':', i + 1)) grants.push(`${name.slice(0, i)}:*`)
  return grants
}

/**
 * Checks a query (string or object form, see {@link PermissionQuery}) against the declared
 * permissions (`null`: names are not checked) and returns its tree, nested groups of one operator flattened. Throws
 * {@link PermissionQueryError} with the place of the first problem.
 */
export function parsePermissionQuery(query: unknown, declared: ReadonlySet<string> | null): QueryNode {
  let terms = 0
  const check = (node: Written): QueryNode => {
    if (node.op === 'name') {
      const { path } = node
      if (++terms > MAX_QUERY_TERMS) {
        throw new PermissionQueryError(
          `a query names at most ${MAX_QUERY_TERMS} permissions`,
          path,
          node.column,
        )
      }
      if (node.name.includes('*')) {
        throw new PermissionQueryError(
          `${JSON.stringify(node.name)} is a wildcard: a wildcard is granted to keys, never required; name the permission`,
          path,
          node.column,
        )
      }
      if (declared !== null && !declared.has(node.name)) {
        throw new PermissionQueryError(
          `the permission ${JSON.stringify(node.name)} is not declared: add it to createKeyward's option \`permissions\``,
          path,
          node.column,
          'undeclared',
        )
      }
      return { op: 'name', name: node.name }
    }
    const items: QueryNode[] = []
    for (const item of node.items) {
      const checked = check(item)
      if (checked.op === node.op) items.push(...checked.items)
      else items.push(checked)
    }
    return { op: node.op, items }
  }
  return check(readWritten(query, [], 0))
}

/** A query in its string form, each group of another operator in parentheses. */
export function formatQuery(node: QueryNode, parent?: 'and' | 'or'): string {
  if (node.op === 'name') return node.name
  const text = node.items.map((item) => formatQuery(item, node.op)).join(` ${node.op} `)
  return parent === undefined ? text : `(${text})`
}
