import { packageBuild } from '../../tsup.base'

export default packageBuild({
  entry: ['src/index.ts', 'src/drizzle.ts', 'src/kysely.ts', 'src/libsql.ts'],
  // One copy of the shared code in CJS too.
  splitting: true,
  external: ['better-sqlite3', 'drizzle-orm', 'kysely', '@libsql/client'],
})
