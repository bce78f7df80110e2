import { programGuideTest } from '../../guide.js'

programGuideTest(
  'fastify',
  new URL('../../../docs/frameworks/fastify.md', import.meta.url),
  new URL('..', import.meta.url),
)
