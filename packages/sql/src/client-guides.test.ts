// The examples of "Your own tables in the same transaction" and "Your own database client" in the
// MySQL and SQLite guides compile, each on its own as a reader pastes it, against the built packages (written beside the package whose
// dependencies they import); the SQLite guide's libSQL block compiles and runs.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** The `ts` blocks of the guide's section `heading`. */
function sectionBlocks(guide: string, heading: string): string[] {
  const text = readFileSync(join(ROOT, guide), 'utf8')
  const start = text.indexOf(`## ${heading}\n`)
  expect(start).toBeGreaterThan(-1)
  const end = text.indexOf('\n## ', start + 1)
  const section = text.slice(start, end === -1 ? undefined : end)
  return [...section.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '')
}

/** The diagnostics of `blocks` compiled as `.ts` files in a folder of `pkg` (which it removes after), and what `then` does with the files. */
function compiled(pkg: string, blocks: string[], then: (files: string[]) => void = () => {}): string[] {
  const dir = mkdtempSync(join(ROOT, pkg, '.guide-'))
  try {
    const files = blocks.map((block, i) => {
      const file = join(dir, `block-${i}.ts`)
      writeFileSync(file, `${block}export {}\n`)
      return file
    })
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
    })
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)
    if (problems.length === 0) then(files)
    return problems
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe("the guides' examples of the application's own client", () => {
  for (const [guide, pkg] of [
    ['docs/mysql.md', 'packages/mysql'],
    ['docs/sqlite.md', 'packages/sqlite'],
  ] as const) {
    it(`${guide}: every block of "Your own tables in the same transaction" and "Your own database client" compiles`, () => {
      const blocks = [
        ...sectionBlocks(guide, 'Your own tables in the same transaction'),
        ...sectionBlocks(guide, 'Your own database client'),
      ]
      expect(blocks.length).toBe(3)
      expect(compiled(pkg, blocks)).toEqual([])
    }, 60_000)
  }

  it('docs/sqlite.md: the block of "On libSQL and Turso" compiles, and runs as pasted (a file beside it)', () => {
    const blocks = sectionBlocks('docs/sqlite.md', 'On libSQL and Turso')
    expect(blocks.length).toBe(1)
    let printed = ''
    const problems = compiled('packages/sqlite', blocks, ([file]) => {
      // The block is JavaScript as well: run as `node libsql.mjs`, in its folder.
      const script = join(dirname(file!), 'libsql.mjs')
      writeFileSync(script, blocks[0]!)
      const env = { ...process.env }
      delete env.LIBSQL_URL
      delete env.LIBSQL_AUTH_TOKEN
      printed = execFileSync(process.execPath, [script], { cwd: dirname(script), env, encoding: 'utf8' })
    })
    expect(problems).toEqual([])
    expect(printed).toMatch(/^issued ak_[\w-]{5} for proj_1\nauthenticated for proj_1\n$/)
  }, 60_000)
})
