// Documents that show code or answers: the Postgres store's guide, whose blocks that start with
// their imports are whole modules a reader can paste, the identities guide, whose blocks are one
// program in order, and the README, whose sample answers have
// the fields the server answers with today.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createKeyward, issuedKeyToJson, keyToJson, MemoryKeyStore } from '@keyward/core'
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

describe('docs/identities.md', () => {
  it('has blocks that compile in order, as one program', () => {
    const program = blocksOf(
      readFileSync(new URL('../../../docs/identities.md', import.meta.url), 'utf8'),
      'ts',
    )
    expect(program.length).toBeGreaterThan(2)
    const files = new Map([[`${dir}/src/docs-identities.ts`, `${program.join('\n')}\nexport {}\n`]])
    expect(typeErrors(dir, files)).toEqual([])
  }, 120_000)
})

describe('README.md', () => {
  it('shows keys, created and listed, with the fields the key routes answer', async () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8')
    const answers = blocksOf(readme, 'json').flatMap((block) =>
      block
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    )
    const keys = answers.flatMap((answer) => [
      ...(answer.key_prefix ? [answer] : []),
      ...(answer.api_key ? [answer.api_key as Record<string, unknown>] : []),
      ...((answer.keys as Record<string, unknown>[] | undefined) ?? []),
    ])
    expect(keys.length).toBeGreaterThan(3)
    const issued = await createKeyward({ store: new MemoryKeyStore() }).issueProjectKey('proj_1')
    const fields = (value: object) => Object.keys(value).sort()
    for (const key of keys) {
      expect(fields(key)).toEqual(fields('key' in key ? issuedKeyToJson(issued) : keyToJson(issued.record)))
    }
  })
})
