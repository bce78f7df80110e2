// Keyward's TypeDoc plugin (loaded by typedoc.json):
// - documents every public package: it sets `entryPoints` to each packages/*/ whose package.json is
//   not private, after typedoc.json is read (entry points given on the command line still win);
// - puts the guides in the site: every docs/*.md and docs/frameworks/*.md becomes a document, in
//   the order the guide table of docs/README.md (the site's home page) lists them, titled by its
//   first heading;
// - warns for every exported function or class without an `@example` in its TSDoc. With
//   `treatWarningsAsErrors`, a missing example fails `pnpm run docs` like a missing comment does.
//   (typedoc.json's `requiredToBeDocumented` covers the other exports; it leaves out "Function"
//   because that kind would also demand a comment on every method signature of an interface.)
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Converter, ReflectionKind } from 'typedoc'
import { publicPackages, ROOT } from './lib/workspace.mjs'

const NEEDS_EXAMPLE = ReflectionKind.Function | ReflectionKind.Class

function hasExample(reflection) {
  const comments = [
    reflection.comment,
    ...(reflection.signatures ?? []).map((signature) => signature.comment),
  ]
  return comments.some((comment) => comment?.getTag('@example') !== undefined)
}

const DOCS = join(ROOT, 'docs')

/** The guides, as paths from the root: those docs/README.md links to first, in its order, then the rest. */
export function guides() {
  const all = ['.', 'frameworks'].flatMap((folder) =>
    readdirSync(join(DOCS, folder))
      .filter((file) => file.endsWith('.md') && file !== 'README.md')
      .map((file) => (folder === '.' ? file : `${folder}/${file}`)),
  )
  const linked = [...readFileSync(join(DOCS, 'README.md'), 'utf8').matchAll(/\]\(([\w/-]+\.md)\)/g)]
    .map((match) => match[1])
    .filter((file) => all.includes(file))
  return [...new Set([...linked, ...all])].map((file) => `docs/${file}`)
}

/**
 * A guide's title: its first `# ` heading without code ticks, and without the package name it may
 * start or end with (`@keyward/cli: the keyward command`): a slash would make a folder of it in the
 * site's navigation.
 */
export function title(content) {
  const text = content.map((part) => part.text).join('')
  const heading = /^# (.+)$/m.exec(text)?.[1].replaceAll('`', '').trim()
  if (!heading?.includes('/')) return heading
  const words = heading
    .split(': ')
    .filter((part) => !part.includes('/'))
    .join(': ')
  return words ? `${words.charAt(0).toUpperCase()}${words.slice(1)}` : undefined
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.options.addReader({
    name: 'keyward-public-packages',
    order: 160, // after typedoc.json (100) and package.json (150), before the command line (300)
    supportsPackages: false,
    read(options) {
      options.setValue(
        'entryPoints',
        publicPackages().map((pkg) => pkg.dir),
      )
      options.setValue('projectDocuments', guides())
    },
  })

  app.converter.on(Converter.EVENT_CREATE_DOCUMENT, (_context, document) => {
    document.name = title(document.content) ?? document.name
  })

  app.on('validateProject', (project) => {
    for (const reflection of project.getReflectionsByKind(NEEDS_EXAMPLE)) {
      if (!hasExample(reflection)) {
        app.logger.warn(
          `${reflection.getFriendlyFullName()} (${ReflectionKind[reflection.kind]}) of ${project.packageName ?? project.name} has no @example in its TSDoc.`,
        )
      }
    }
  })
}
