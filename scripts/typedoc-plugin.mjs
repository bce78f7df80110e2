// Keyward's TypeDoc plugin (loaded by typedoc.json):
// - documents every public package: it sets `entryPoints` to each packages/*/ whose package.json is
//   not private, after typedoc.json is read (entry points given on the command line still win);
// - warns for every exported function or class without an `@example` in its TSDoc. With
//   `treatWarningsAsErrors`, a missing example fails `pnpm run docs` like a missing comment does.
//   (typedoc.json's `requiredToBeDocumented` covers the other exports; it leaves out "Function"
//   because that kind would also demand a comment on every method signature of an interface.)
import { ReflectionKind } from 'typedoc'
import { publicPackages } from './lib/workspace.mjs'

const NEEDS_EXAMPLE = ReflectionKind.Function | ReflectionKind.Class

function hasExample(reflection) {
  const comments = [
    reflection.comment,
    ...(reflection.signatures ?? []).map((signature) => signature.comment),
  ]
  return comments.some((comment) => comment?.getTag('@example') !== undefined)
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
    },
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
