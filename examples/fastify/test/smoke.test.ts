import { smokeTest } from '../../smoke.js'

smokeTest('@keyward/example-fastify', new URL('..', import.meta.url))
