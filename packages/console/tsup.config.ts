import { packageBuild } from '../../tsup.base'

export default packageBuild({
  entry: ['src/index.ts', 'src/hono.ts', 'src/express.ts', 'src/fastify.ts'],
  external: [/^hono/, /^express/, /^fastify/],
  // The page's files are found next to the built module, in ESM and in CommonJS alike.
  shims: true,
})
