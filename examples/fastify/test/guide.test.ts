import { appendedGuideTest, programGuideTest } from '../../guide.js'

programGuideTest(
  'fastify',
  new URL('../../../docs/frameworks/fastify.md', import.meta.url),
  new URL('..', import.meta.url),
)

// The policies page shows the guards with roles and queries in every framework: this one's block.
appendedGuideTest(
  'policies (fastify)',
  new URL('../../../docs/policies.md', import.meta.url),
  new URL('..', import.meta.url),
  'src/main.ts',
  'ts fastify',
)
