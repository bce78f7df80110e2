import { smokeTest } from '../../smoke.js'

// Its guide's program, on either platform: it serves its routes, and stops cleanly (on SIGTERM it
// writes the last-used times and exits with 0).
for (const platform of ['express', 'fastify']) {
  smokeTest(`@keyward/example-nestjs on platform-${platform}`, new URL('..', import.meta.url), {
    env: { PLATFORM: platform },
    console: false,
    exitsOnSigterm: true,
    guideRoutes: true,
    identities: true,
  })
}
