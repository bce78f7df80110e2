import { smokeTest } from '../../smoke.js'

smokeTest('@keyward/example-hono', new URL('..', import.meta.url))
