import { appendedGuideTest, programGuideTest } from '../../guide.js'

programGuideTest(
  'hono',
  new URL('../../../docs/frameworks/hono.md', import.meta.url),
  new URL('..', import.meta.url),
)

// The policies page shows the guards with roles and queries in every framework: this one's block.
appendedGuideTest(
  'policies (hono)',
  new URL('../../../docs/policies.md', import.meta.url),
  new URL('..', import.meta.url),
  'src/main.ts',
  'ts hono',
)
