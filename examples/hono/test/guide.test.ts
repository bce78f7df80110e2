import { policiesGuideTest, programGuideTest } from '../../guide.js'

programGuideTest(
  'hono',
  new URL('../../../docs/frameworks/hono.md', import.meta.url),
  new URL('..', import.meta.url),
)

// The policies page shows the guards with roles and queries in every framework: this one's block.
policiesGuideTest('hono', new URL('..', import.meta.url))
