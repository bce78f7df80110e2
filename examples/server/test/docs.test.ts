// The guide of the Postgres store: each of its blocks that starts with its imports is a whole
// module a reader can paste, and compiles against the built packages as it stands.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { blocksOf, typeErrors } from '../../guide.js'

const dir = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '')
const guide = readFileSync(new URL('../../../docs/postgres.md', import.meta.url), 'utf8')

describe('docs/postgres.md', () => {
  it('has blocks that compile as they are, each a module of its own', () => {
    const modules = blocksOf(guide, 'ts').filter((block) => block.startsWith('import '))
    expect(modules.length).toBeGreaterThan(4)
    const files = new Map(
      modules.map((block, i) => [`${dir}/src/docs-postgres-${i + 1}.ts`, `${block}\nexport {}\n`]),
    )
    expect(typeErrors(dir, files)).toEqual([])
  }, 120_000)
})
