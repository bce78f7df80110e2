import { packageBuild } from '../../tsup.base'

export default packageBuild({
  // `@keyward/core/client` is the part the HTTP client needs; one copy of the shared code in CJS
  // too, so that `ClientConfigError` is one class for both entry points.
  entry: ['src/index.ts', 'src/client.ts'],
  splitting: true,
})
