import { smokeTest } from '../../smoke.js'

// `next build`, then `next start` on a free port of 127.0.0.1: the protected route handler and the
// key routes of the catch-all answer as the other examples' servers do.
process.env.NEXT_TELEMETRY_DISABLED = '1'

smokeTest('@keyward/example-nextjs', new URL('..', import.meta.url), {
  command: ['node_modules/next/dist/bin/next', 'start', '--hostname', '127.0.0.1'],
  buildTimeout: 240_000,
  exitsOnSigterm: true,
  console: false,
  identities: true,
})
