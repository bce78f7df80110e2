import { smokeTest } from '../../smoke.js'

smokeTest('@keyward/example-nestjs', new URL('..', import.meta.url), { console: false })
