// The examples of "Your own tables in the same transaction" and "Your own database client" in the
// MySQL and SQLite guides compile, each on its own as a reader pastes it, against the built packages (written beside the package whose
// dependencies they import).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
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
        expect(problems).toEqual([])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }, 60_000)
  }
})
