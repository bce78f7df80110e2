import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compilePermissions, grantedOf, missingMessage } from './permission-check.js'
import { formatQuery, type PermissionQuery, parsePermissionQuery, type QueryNode } from './query.js'

const DECLARED = [
  'a',
  'b',
  'c',
  'd',
  'admin',
  'reports:read',
  'reports:write',
  'reports:daily:read',
  'billing:read',
  'x.y-z_1',
]
const declared = new Set(DECLARED)

// The independent evaluator: JavaScript's own parser reads the string form (`and` -> `&&`, `or` ->
// `||`, whose precedence is the query language's), and a grant is matched by brute force, without
// the library's grant lists.
function grants(held: readonly string[], name: string): boolean {
  return held.some(
    (grant) =>
      grant === name || grant === '*' || (grant.endsWith(':*') && name.startsWith(grant.slice(0, -1))),
  )
}

function oracleString(query: string, held: readonly string[]): boolean {
  const names: string[] = []
  const source = query.replace(/[A-Za-z0-9_.:*-]+/g, (word) => {
    if (/^(and|AND)$/.test(word)) return '&&'
    if (/^(or|OR)$/.test(word)) return '||'
    names.push(word)
    return `v[${names.length - 1}]`
  })
  const run = new Function('v', `return (${source})`) as (v: boolean[]) => boolean
  return run(names.map((name) => grants(held, name)))
}

function oracleObject(query: PermissionQuery, held: readonly string[]): boolean {
  if (typeof query === 'string') return oracleString(query, held)
  const [op, items] = Object.entries(query)[0] as ['and' | 'or', PermissionQuery[]]
  const values = items.map((item) => oracleObject(item, held))
  return op === 'and' ? !values.includes(false) : values.includes(true)
}

const check = (query: PermissionQuery, held: readonly string[]) =>
  compilePermissions(query, declared).test(grantedOf(held))

const QUERIES: readonly PermissionQuery[] = [
  'a',
  'a and b',
  'a or b',
  'a and b or c',
  'a or b and c',
  'a and (b or c)',
  '(a or b) and c',
  '(a or b) and (c or d)',
  'a and b and c and d',
  'a or b or c or d',
  'a or b and c or d',
  'a and b or c and d',
  '((a))',
  '(a and (b or (c and (d or admin))))',
  'reports:read and (billing:read or admin)',
  'reports:read or reports:write',
  'reports:daily:read and reports:read',
  'reports:daily:read or billing:read and admin',
  'x.y-z_1 and a',
  'a AND b OR c',
  '  a\tand\n( b or c )  ',
  'admin or (reports:read and reports:write and billing:read)',
  '(a or b) and (a or c) and (b or d)',
  'a and a',
  'a or a and b',
  { and: ['a', 'b'] },
  { or: ['a', 'b'] },
  { and: ['a', { or: ['b', 'c'] }] },
  { or: [{ and: ['a', 'b'] }, { and: ['c', 'd'] }] },
  { and: ['reports:read', 'billing:read or admin'] },
  { or: ['reports:daily:read', { and: ['reports:write', 'a or b'] }] },
  { and: ['a'] },
  { or: [{ or: [{ or: ['a'] }] }, 'b and c'] },
  { and: [{ and: ['a', 'b'] }, { and: ['c', { or: ['d', 'admin'] }] }] },
  { and: ['(a or b) and c', { or: ['d', 'reports:read and reports:write'] }] },
  'billing:read and (reports:read or reports:write) and (admin or a)',
]

const HELD: readonly (readonly string[])[] = [
  [],
  ['a'],
  ['b'],
  ['a', 'b'],
  ['c', 'd'],
  ['a', 'c'],
  ['b', 'c', 'd'],
  ['*'],
  ['reports:*'],
  ['reports:daily:*'],
  ['reports:*', 'billing:read'],
  ['admin', 'reports:read'],
  ['billing:*', 'a', 'd'],
  ['reports:read', 'billing:read'],
  ['x.y-z_1', 'a'],
  ['report:*', 'reports', 'billing'],
]

describe('permission queries: a table against an independent evaluator', () => {
  it('the oracle reads the table as written (hand-checked rows)', () => {
    expect(oracleString('a or b and c', ['a'])).toBe(true)
    expect(oracleString('a or b and c', ['b'])).toBe(false)
    expect(oracleString('(a or b) and c', ['b', 'c'])).toBe(true)
    expect(oracleString('reports:read and (billing:read or admin)', ['reports:*', 'admin'])).toBe(true)
    expect(oracleString('reports:daily:read', ['reports:*'])).toBe(true)
    expect(oracleString('reports:read', ['report:*'])).toBe(false)
  })

  const cases = QUERIES.flatMap((query) => HELD.map((held) => [query, held] as const))
  it(`has at least 300 cases (${cases.length})`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(300)
  })

  it.each(cases.map(([query, held]) => [JSON.stringify(query), JSON.stringify(held), query, held] as const))(
    '%s with %s',
    (_query, _held, query, held) => {
      expect(check(query, held)).toBe(oracleObject(query, held))
    },
  )

  it("agrees with the evaluator over each query's whole truth table of its names", () => {
    for (const query of QUERIES) {
      const names = [...JSON.stringify(query).matchAll(/[A-Za-z0-9_.:-]+/g)]
        .map(([word]) => word)
        .filter((word) => declared.has(word))
      const unique = [...new Set(names)]
      for (let mask = 0; mask < 1 << unique.length; mask++) {
        const held = unique.filter((_, bit) => mask & (1 << bit))
        expect(check(query, held), `${JSON.stringify(query)} with ${held}`).toBe(oracleObject(query, held))
      }
    }
  })

  it('reads and tighter than or, and flattens groups of one operator', () => {
    expect(formatQuery(parsePermissionQuery('a or b and c', declared))).toBe('a or (b and c)')
    expect(formatQuery(parsePermissionQuery('(a or b) and c', declared))).toBe('(a or b) and c')
    expect(parsePermissionQuery('a and (b and c)', declared)).toEqual({
      op: 'and',
      items: [
        { op: 'name', name: 'a' },
        { op: 'name', name: 'b' },
        { op: 'name', name: 'c' },
      ],
    })
  })
})

describe('permission queries: refusals', () => {
  const refusal = (query: unknown) => {
    try {
      parsePermissionQuery(query, declared)
    } catch (error) {
      return (error as Error).message
    }
    throw new Error('accepted')
  }

  it('gives the position of a malformed string', () => {
    expect(refusal('a and')).toBe('at character 6: expected a permission name or "(", found the end')
    expect(refusal('a b')).toBe('at character 3: expected "and", "or" or the end, found "b"')
    expect(refusal('(a or b')).toBe(
      'at character 8: expected "and", "or" or ")" to close the "(" at character 1, found the end',
    )
    expect(refusal('a)')).toBe('at character 2: expected the end: this ")" closes nothing, found ")"')
    expect(refusal('a & b')).toContain('at character 3: unexpected character "&"')
    expect(refusal('')).toBe('at character 1: expected a permission name or "(", found the end')
    expect(refusal('or a')).toBe('at character 1: expected a permission name or "(", found "or"')
  })

  it('refuses more than 8 levels, counting parentheses and objects alike', () => {
    expect(() => parsePermissionQuery(`${'('.repeat(8)}a${')'.repeat(8)}`, declared)).not.toThrow()
    expect(refusal(`${'('.repeat(9)}a${')'.repeat(9)}`)).toMatch(
      /^at character 9: a query is at most 8 levels deep/,
    )
    let nested: PermissionQuery = 'a'
    for (let i = 0; i < 8; i++) nested = { and: [nested, 'b'] }
    expect(() => parsePermissionQuery(nested, declared)).not.toThrow()
    expect(refusal({ or: [nested] })).toMatch(
      /^at \.or\[0\](\.and\[0\]){7}: a query is at most 8 levels deep/,
    )
    let mixed: PermissionQuery = '(((a)))'
    for (let i = 0; i < 6; i++) mixed = { or: [mixed] }
    expect(refusal(mixed)).toMatch(/^at (\.or\[0\]){6}, at character 3: a query is at most 8/)
  })

  it('refuses a string over 1000 characters', () => {
    const long = Array.from({ length: 200 }, () => 'admin').join(' or ')
    expect(long.length).toBeGreaterThan(1000)
    expect(refusal(long)).toBe(
      `at character 1001: a query has at most 1000 characters, this one ${long.length}`,
    )
  })

  it('refuses an undeclared permission and a required wildcard, where they stand', () => {
    expect(refusal('a and (b or nope)')).toBe(
      'at character 13: the permission "nope" is not declared: add it to createKeyward\'s option `permissions`',
    )
    expect(refusal({ and: ['a', { or: ['b', 'reports:*'] }] })).toMatch(
      /^at \.and\[1\]\.or\[1\], at character 1: "reports:\*" is a wildcard/,
    )
    expect(refusal('*')).toMatch(/"\*" is a wildcard: a wildcard is granted to keys, never required/)
  })

  it('refuses objects that are no query', () => {
    expect(refusal({ and: [] })).toBe('at .and: and must be a list of at least one query')
    expect(refusal({ and: ['a'], or: ['b'] })).toMatch(/expected one field, and or or .* found "and", "or"/)
    expect(refusal({ all: ['a'] })).toMatch(/found "all"/)
    expect(refusal({ and: [1] })).toMatch(/^at \.and\[0\]: expected a permission name/)
    expect(refusal(null)).toMatch(/expected a permission name/)
  })
})

describe('permission queries: what a refusal names', () => {
  const missing = (query: PermissionQuery, held: readonly string[]) => {
    const compiled = compilePermissions(query, declared)
    return missingMessage(compiled.missing(grantedOf(held))!)
  }
  it('names the missing permission, the alternatives, or the part of the query the key lacks', () => {
    expect(missing('a and b', ['a'])).toBe('The API key lacks the permission b.')
    expect(missing('a or b', [])).toBe('The API key lacks a permission this route requires: one of a, b.')
    expect(missing('reports:read and (billing:read or admin)', ['reports:read'])).toBe(
      'The API key lacks a permission this route requires: one of billing:read, admin.',
    )
    expect(missing('reports:read and (billing:read or admin)', [])).toBe(
      'The API key lacks permissions this route requires: reports:read and (billing:read or admin).',
    )
    expect(missing('(a and b) or c', [])).toBe(
      'The API key lacks permissions this route requires: (a and b) or c.',
    )
    expect(compilePermissions('a', declared).missing(grantedOf(['*']))).toBeNull()
  })
})

// Query trees over the declared names, up to 4 levels.
const tree: fc.Arbitrary<QueryNode> = fc
  .letrec<{ node: QueryNode }>((self) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(...DECLARED).map((name): QueryNode => ({ op: 'name', name })),
      fc
        .record({
          op: fc.constantFrom('and' as const, 'or' as const),
          items: fc.array(self('node'), { minLength: 1, maxLength: 4 }),
        })
        .map((group): QueryNode => group),
    ),
  }))
  .node.filter((node) => depthOf(node) <= 4)

function depthOf(node: QueryNode): number {
  return node.op === 'name' ? 0 : 1 + Math.max(...node.items.map(depthOf))
}

const objectForm = (node: QueryNode): PermissionQuery =>
  node.op === 'name' ? node.name : ({ [node.op]: node.items.map(objectForm) } as unknown as PermissionQuery)

// Every group in parentheses, with random spacing and case of the operators.
const stringForm = (node: QueryNode, spaces: readonly string[], upper: boolean, i = { n: 0 }): string => {
  if (node.op === 'name') return node.name
  const space = () => spaces[i.n++ % spaces.length]!
  const op = upper ? node.op.toUpperCase() : node.op
  return `(${space()}${node.items.map((item) => stringForm(item, spaces, upper, i)).join(` ${space()}${op} `)}${space()})`
}

describe('permission queries: the string form against the object form (properties)', () => {
  it('a string of a tree and the tree as objects grant the same keys', () => {
    fc.assert(
      fc.property(
        tree,
        fc.array(fc.constantFrom('', ' ', '\t', '\n'), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.subarray([...DECLARED, '*', 'reports:*', 'reports:daily:*', 'billing:*']),
        (node, spaces, upper, held) => {
          const text = stringForm(node, spaces, upper)
          fc.pre(text.length <= 1000)
          expect(check(text, held)).toBe(check(objectForm(node), held))
          expect(check(text, held)).toBe(oracleString(text, held))
        },
      ),
      { numRuns: 500 },
    )
  })

  it('the formatted query parses back to the same tree, with parentheses only where needed', () => {
    fc.assert(
      fc.property(tree, (node) => {
        const parsed = parsePermissionQuery(objectForm(node), declared)
        expect(parsePermissionQuery(formatQuery(parsed), declared)).toEqual(parsed)
      }),
      { numRuns: 500 },
    )
  })

  it('arbitrary strings are parsed or refused with a position inside them, never thrown otherwise', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'and', 'or', '(', ')', ' ', 'admin', 'nope', '*', '&'), {
          maxLength: 20,
        }),
        (parts) => {
          const text = parts.join(' ')
          try {
            const parsed = parsePermissionQuery(text, declared)
            expect(check(text, ['a'])).toBe(oracleString(text, ['a']))
            expect(parsed).toBeDefined()
          } catch (error) {
            const column = (error as { column?: number }).column
            expect(column).toBeGreaterThanOrEqual(1)
            expect(column).toBeLessThanOrEqual(text.length + 1)
          }
        },
      ),
      { numRuns: 1000 },
    )
  })
})
