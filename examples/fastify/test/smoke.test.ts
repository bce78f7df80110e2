import { smokeTest } from '../../smoke.js'

// Its guide's program stops cleanly (on SIGTERM it writes the last-used times and exits with 0), and serves its routes.
smokeTest('@keyward/example-fastify', new URL('..', import.meta.url), {
  exitsOnSigterm: true,
  guideRoutes: true,
  identities: true,
})
