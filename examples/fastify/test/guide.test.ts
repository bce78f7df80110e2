import { policiesGuideTest, programGuideTest } from '../../guide.js'

programGuideTest(
  'fastify',
  new URL('../../../docs/frameworks/fastify.md', import.meta.url),
  new URL('..', import.meta.url),
)

// The policies page shows the guards with roles and queries in every framework: this one's block.
policiesGuideTest('fastify', new URL('..', import.meta.url))
