// The test every framework guide passes, in one of two forms:
// - a guide that builds one program (`programGuideTest`): its `ts` blocks, pasted in order one
//   after the other as a reader does, are the example's main file word for word (so the program
//   the reader ends with runs: the example's smoke test starts it), and each `ts variant` block,
//   an alternative that says which line it replaces, compiles appended to that program (in place
//   of the program's declarations of the names it declares again, such as its `app`);
// - otherwise (`guideTest`): its first TypeScript block is the example's main file (src/main.ts,
//   or the module its app is built around), word for word, and every later block compiles when
//   appended to it.
// - or, for an app of several files (`filesGuideTest`, the Next.js app of the fetch guide): each
//   block names its file on its first line; a block of a file the example has is that file word
//   for word, and a block of a new file, or one `in place of` a file, compiles as that file of the
//   example on its own (so it imports what it uses, as a pasted file must); with the guide's own
//   tsconfig.json too, when it gives one.
// All compile against the built packages, as a reader's app would.
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

export const blocksOf = (markdown: string, info = 'ts(?: variant)?') =>
  [...markdown.matchAll(new RegExp(`^\`\`\`${info}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1] ?? '')

const IMPORT = /^import\s+(type\s+)?(?:(\w+)\s*,?\s*)?(?:\{([^}]*)\})?\s*from\s+'([^']+)'\n/gm

/** The local names an import section binds. */
function importedNames(source: string): Set<string> {
  const names = new Set<string>()
  for (const [, , defaultName, named] of source.matchAll(IMPORT)) {
    if (defaultName) names.add(defaultName)
    for (const part of (named ?? '').split(',')) {
      const local = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()
      if (local) names.add(local)
    }
  }
  return names
}

/** The names a module exports from its own declarations (`export const x`, `export function f`). */
function exportedNames(source: string): Set<string> {
  return new Set(
    [...source.matchAll(/^export\s+(?:async\s+)?(?:const|let|function|class)\s+(\w+)/gm)].map((m) => m[1]!),
  )
}

/** The names that the top-level statements of `source` declare (classes, functions, variables). */
function topLevelDeclarations(source: string): { names: string[]; start: number; end: number }[] {
  const file = ts.createSourceFile('block.ts', source, ts.ScriptTarget.Latest, true)
  return file.statements.map((statement) => {
    const names =
      (ts.isClassDeclaration(statement) || ts.isFunctionDeclaration(statement)) && statement.name
        ? [statement.name.text]
        : ts.isVariableStatement(statement)
          ? statement.declarationList.declarations.flatMap((d) =>
              ts.isIdentifier(d.name) ? [d.name.text] : [],
            )
          : []
    return { names, start: statement.getFullStart(), end: statement.end }
  })
}

/**
 * `main` with `block` appended: the block's imports of names `main` lacks go first (an import of
 * a name `main` exports, such as a route file's `import { keyward } from '@/lib/keyward'`, is
 * dropped). A block that declares a name `main` declares (a variant `in place of` the root module
 * or the app) goes in place of those declarations of `main`, where the first of them was.
 */
function appended(main: string, block: string): string {
  const known = new Set([...importedNames(main), ...exportedNames(main)])
  const imports: string[] = []
  const body = block.replace(
    IMPORT,
    (
      _line,
      typeOnly: string | undefined,
      defaultName: string | undefined,
      named: string | undefined,
      from,
    ) => {
      const specifiers = (named ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(
          (s) =>
            s &&
            !known.has(
              s
                .replace(/^type\s+/, '')
                .split(/\s+as\s+/)
                .pop()!,
            ),
        )
      const head = defaultName && !known.has(defaultName) ? defaultName : ''
      if (head || specifiers.length > 0) {
        imports.push(
          `import ${typeOnly ?? ''}${[head, specifiers.length ? `{ ${specifiers.join(', ')} }` : ''].filter(Boolean).join(', ')} from '${from}'\n`,
        )
      }
      return ''
    },
  )
  const declared = new Set(topLevelDeclarations(body).flatMap((d) => d.names))
  const replaced = topLevelDeclarations(main).filter((d) => d.names.some((name) => declared.has(name)))
  if (replaced.length === 0) return `${imports.join('')}${main}\n// --- from the guide ---\n${body}`
  let program = main
  for (const [i, { start, end }] of [...replaced.entries()].reverse()) {
    program = `${program.slice(0, start)}${i === 0 ? `\n// --- from the guide ---\n${body}` : ''}${program.slice(end)}`
  }
  return `${imports.join('')}${program}`
}

/**
 * Type errors of `files` (path to source) compiled with the example's tsconfig, or with `tsconfig`
 * (the content of a `tsconfig.json`, as if in the example's folder).
 */
export function typeErrors(
  exampleDir: string,
  files: ReadonlyMap<string, string>,
  tsconfig?: object,
): string[] {
  const configPath = `${exampleDir}/tsconfig.json`
  const config = tsconfig ? { config: tsconfig } : ts.readConfigFile(configPath, ts.sys.readFile)
  // Compiled once, in memory: no incremental build information (Next.js's tsconfig asks for it).
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, exampleDir).options
  const options = { ...parsed, noEmit: true, incremental: false }
  const host = ts.createCompilerHost(options)
  const { fileExists, readFile, getSourceFile } = host
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name)
  host.readFile = (name) => files.get(name) ?? readFile.call(host, name)
  host.getSourceFile = (name, language, ...rest) =>
    files.has(name)
      ? ts.createSourceFile(name, files.get(name)!, language)
      : getSourceFile.call(host, name, language, ...rest)
  const program = ts.createProgram([...files.keys()], options, host)
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file === undefined || files.has(d.file.fileName))
    .map((d) => {
      const where = d.file
        ? `${d.file.fileName.split('/').pop()}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
        : ''
      return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`
    })
}

/**
 * Checks the guide at `guide` (a markdown file) against the example in `exampleDir`, whose main
 * file is `mainFile` (default `src/main.ts`).
 * Needs the packages built (`pnpm build`): the example compiles against them as a user's app would.
 */
export function guideTest(name: string, guide: URL, exampleDir: URL, mainFile = 'src/main.ts'): void {
  const dir = fileURLToPath(exampleDir).replace(/\/$/, '')
  const blocks = blocksOf(readFileSync(guide, 'utf8'))
  const mainPath = `${dir}/${mainFile}`
  const main = readFileSync(mainPath, 'utf8')

  describe(`the ${name} guide`, () => {
    it(`shows the example's ${mainFile}, word for word, as its first TypeScript block`, () => {
      expect(blocks[0]).toBe(main)
    })

    it('has later blocks that each start by saying where they go', () => {
      for (const block of blocks.slice(1)) expect(block.split('\n')[0]).toMatch(/^\/\/ \S/)
    })

    itCompilesAppended('has later TypeScript blocks that compile, each appended to the example', {
      blocks: blocks.slice(1),
      dir,
      mainPath,
      name: (i) => `guide-block-${i + 2}`,
    })
  })
}

/** The check, named `title`, that `blocks` each compile appended to the example's main file. */
function itCompilesAppended(
  title: string,
  {
    blocks,
    dir,
    mainPath,
    name,
  }: { blocks: readonly string[]; dir: string; mainPath: string; name: (i: number) => string },
): void {
  const main = readFileSync(mainPath, 'utf8')
  const beside = mainPath.slice(0, mainPath.lastIndexOf('/'))
  it(title, () => {
    expect(blocks.length).toBeGreaterThan(0)
    const files = new Map(blocks.map((block, i) => [`${beside}/${name(i)}.ts`, appended(main, block)]))
    expect(typeErrors(dir, files)).toEqual([])
  }, 120_000) // a whole program's type check, on a loaded machine
}

/**
 * Checks a page whose TypeScript blocks build on the program of a framework guide (the example in
 * `exampleDir`, main file `mainFile`): each compiles appended to it. With `info` (e.g.
 * `'ts express'`), only the blocks of that info string: a page that shows every framework.
 */
export function appendedGuideTest(
  name: string,
  page: URL,
  exampleDir: URL,
  mainFile = 'src/main.ts',
  info?: string,
): void {
  const dir = fileURLToPath(exampleDir).replace(/\/$/, '')
  describe(`the ${name} page, on the program of the guide`, () => {
    itCompilesAppended('has TypeScript blocks that compile, each appended to the program', {
      blocks: blocksOf(readFileSync(page, 'utf8'), info),
      dir,
      mainPath: `${dir}/${mainFile}`,
      name: (i) => `page-block-${i + 1}`,
    })
  })
}

/**
 * Checks the block of `framework` (info string `ts <framework>`) of the policies page, which shows
 * the guards with roles and queries in every framework, appended to the example's program.
 */
export function policiesGuideTest(framework: string, exampleDir: URL, mainFile = 'src/main.ts'): void {
  const page = new URL('../docs/policies.md', import.meta.url)
  appendedGuideTest(`policies (${framework})`, page, exampleDir, mainFile, `ts ${framework}`)
}

/** The packages a guide's `npm install` lines install: `{ name, dev }` (`-D`: a dev dependency). */
function installed(markdown: string): { name: string; dev: boolean }[] {
  return blocksOf(markdown, 'sh').flatMap((block) =>
    [...block.matchAll(/^npm install (.*)$/gm)].flatMap(([, args = '']) => {
      const words = args.replace(/#.*/, '').trim().split(/\s+/)
      const dev = words.includes('-D') || words.includes('--save-dev')
      return words.filter((w) => !w.startsWith('-')).map((w) => ({ name: w.replace(/(.)@.*$/, '$1'), dev }))
    }),
  )
}

/** The packages a program imports (`node:` modules, relative paths and `@/` aliases aside). */
function importedPackages(source: string): Set<string> {
  const specifiers = [...source.matchAll(/^import\s+(?:[^'";]*?\s+from\s+)?'([^']+)'/gm)].map((m) => m[1]!)
  return new Set(
    specifiers
      .filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !s.startsWith('@/'))
      .map((s) =>
        s
          .split('/')
          .slice(0, s.startsWith('@') ? 2 : 1)
          .join('/'),
      ),
  )
}

/** Whether a package the example depends on ships its own types (else a reader needs `@types/...`). */
function hasOwnTypes(exampleDir: string, name: string): boolean {
  const dir = `${exampleDir}/node_modules/${name}`
  const manifest = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'))
  return Boolean(
    manifest.types ||
      manifest.typings ||
      existsSync(`${dir}/index.d.ts`) ||
      JSON.stringify(manifest.exports ?? {}).includes('"types"'),
  )
}

/**
 * A guide's setup against its program: its install lines name every package the program imports
 * (and `@types/...` of those without types of their own), and `tsx` as a dev dependency when the
 * guide runs the program with `npx tsx` (without it, npx asks before downloading, and stops where
 * nobody can answer).
 */
function setupProblems(markdown: string, program: string, exampleDir: string): string[] {
  const packages = installed(markdown)
  const has = (name: string) => packages.some((p) => p.name === name)
  const problems = [...importedPackages(program)].flatMap((name) => {
    if (!has(name)) return [`${name} is imported but not installed`]
    const types = `@types/${name.replace(/^@(.*)\//, '$1__')}`
    return hasOwnTypes(exampleDir, name) || has(types) ? [] : [`${types} is not installed`]
  })
  if (/npx tsx /.test(markdown) && !packages.some((p) => p.name === 'tsx' && p.dev)) {
    problems.push('tsx runs the program but is not installed as a dev dependency')
  }
  return problems
}

/** The compiler options of the guide's `tsconfig.json` (a `json` block with `compilerOptions`), if it gives one. */
function guideTsconfig(markdown: string): object | undefined {
  const block = blocksOf(markdown, 'json').find((b) => b.includes('"compilerOptions"'))
  return block === undefined ? undefined : (JSON.parse(block) as object)
}

/**
 * Checks a guide that builds one program (see the top of this file) against the example in
 * `exampleDir`, whose main file is `mainFile` (default `src/main.ts`).
 */
export function programGuideTest(name: string, guide: URL, exampleDir: URL, mainFile = 'src/main.ts'): void {
  const dir = fileURLToPath(exampleDir).replace(/\/$/, '')
  const markdown = readFileSync(guide, 'utf8')
  const parts = blocksOf(markdown, 'ts')
  const variants = blocksOf(markdown, 'ts variant')
  const mainPath = `${dir}/${mainFile}`
  const main = readFileSync(mainPath, 'utf8')

  describe(`the ${name} guide, one program`, () => {
    it(`gives ${mainFile} when its blocks are pasted in order, one after the other`, () => {
      expect(parts.length).toBeGreaterThan(1)
      expect(parts.join('\n')).toBe(main)
    })

    it(`has blocks that each start by saying where they go`, () => {
      for (const block of [...parts, ...variants]) {
        expect(block.split('\n')[0]).toMatch(
          new RegExp(`^// .*(?:${mainFile.replace('.', '\\.')}|in place of)`, 'i'),
        )
      }
    })

    itCompilesAppended('has alternatives that compile in the program', {
      blocks: variants,
      dir,
      mainPath,
      name: (i) => `guide-variant-${i + 1}`,
    })

    it('installs what the program imports, and the tsx that runs it, on its install lines', () => {
      expect(setupProblems(markdown, [main, ...variants].join('\n'), dir)).toEqual([])
    })

    const tsconfig = guideTsconfig(markdown)
    it.skipIf(tsconfig === undefined)(
      "compiles with the guide's own tsconfig.json",
      () => {
        expect(typeErrors(dir, new Map([[mainPath, main]]), tsconfig)).toEqual([])
      },
      120_000,
    )
  })
}

/**
 * Checks a guide of an app of several files (see the top of this file) against the example in
 * `exampleDir`.
 */
export function filesGuideTest(name: string, guide: URL, exampleDir: URL): void {
  const dir = fileURLToPath(exampleDir).replace(/\/$/, '')
  const markdown = readFileSync(guide, 'utf8')
  const blocks = blocksOf(markdown).map((block) => {
    const first = block.split('\n')[0] ?? ''
    const path = /^\/\/ ([\w@.[\]/-]+\.ts)\b/.exec(first)?.[1]
    return { block, first, path, replaces: /in place of/i.test(first) }
  })
  const own = blocks.filter((b) => b.path && !b.replaces && existsSync(`${dir}/${b.path}`))
  const added = blocks.filter((b) => b.path && !own.includes(b))

  describe(`the ${name} guide, one app of files`, () => {
    it('names the file of each block on its first line', () => {
      expect(blocks.filter((b) => b.path === undefined).map((b) => b.first)).toEqual([])
    })

    it("shows the example's files word for word", () => {
      expect(own.length).toBeGreaterThan(1)
      for (const { block, path } of own) expect(block, path).toBe(readFileSync(`${dir}/${path}`, 'utf8'))
    })

    it('has files to add or replace that compile, each on its own, in the example', () => {
      expect(added.length).toBeGreaterThan(0)
      const files = new Map(
        added.map(({ block, path }, i) => [`${dir}/${path!.replace(/\.ts$/, '')}.guide-${i + 1}.ts`, block]),
      )
      expect(typeErrors(dir, files)).toEqual([])
    }, 120_000) // a whole program's type check, on a loaded machine

    it('installs what its files import, on its install lines', () => {
      expect(setupProblems(markdown, blocks.map((b) => b.block).join('\n'), dir)).toEqual([])
    })

    const tsconfig = guideTsconfig(markdown)
    it.skipIf(tsconfig === undefined)(
      "compiles its files with the guide's own tsconfig.json",
      () => {
        const files = new Map([
          ...own.map(({ block, path }) => [`${dir}/${path}`, block] as const),
          ...added.map(
            ({ block, path }, i) =>
              [`${dir}/${path!.replace(/\.ts$/, '')}.guide-${i + 1}.ts`, block] as const,
          ),
        ])
        expect(typeErrors(dir, files, tsconfig)).toEqual([])
      },
      120_000,
    )
  })
}
