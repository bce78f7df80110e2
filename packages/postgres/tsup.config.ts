import { copyFile, readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { Options } from 'tsup'
import { packageBuild } from '../../tsup.base'

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number]

// `import text from './schema.sql?raw'` inlines the file as a string (Vite, and so vitest,
// understands the same suffix), so the SQL lives in one readable file.
const rawText: EsbuildPlugin = {
  name: 'raw-text',
  setup(build) {
    build.onResolve({ filter: /\?raw$/ }, (args) => ({
      path: resolve(args.resolveDir, args.path.slice(0, -'?raw'.length)),
      namespace: 'raw-text',
    }))
    build.onLoad({ filter: /.*/, namespace: 'raw-text' }, async (args) => ({
      contents: await readFile(args.path, 'utf8'),
      loader: 'text',
    }))
  },
}

export default packageBuild({
  entry: [
    'src/index.ts',
    'src/pg.ts',
    'src/pglite.ts',
    'src/postgres-js.ts',
    'src/drizzle.ts',
    'src/kysely.ts',
  ],
  // One copy of the shared code in CJS too, so `PostgresKeyStore` is one class for every entry point.
  splitting: true,
  external: ['pg', '@electric-sql/pglite', 'postgres', 'drizzle-orm', 'kysely', 'ioredis'],
  esbuildPlugins: [rawText],
  // Ship the schema as files too, for those who apply it with their own tooling.
  onSuccess: async () => {
    for (const file of [
      'schema.sql',
      'schema-v2.sql',
      'change-feed.sql',
      'closed-owners.sql',
      'key-pages.sql',
      'key-policies.sql',
      'audit-log.sql',
      'credits.sql',
      'key-usage.sql',
      'identities.sql',
      'key-ratelimits.sql',
      'key-search.sql',
      'key-pepper.sql',
      'roles.sql',
      'webhooks.sql',
      'identity-roles.sql',
      'credit-events.sql',
    ]) {
      await copyFile(`src/${file}`, `dist/${file}`)
    }
  },
})
