import { smokeTest } from '../../smoke.js'

smokeTest('@keyward/example-express', new URL('..', import.meta.url))
