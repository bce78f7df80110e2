import { guideTest } from '../../guide.js'

guideTest(
  'fastify',
  new URL('../../../docs/frameworks/fastify.md', import.meta.url),
  new URL('..', import.meta.url),
)
