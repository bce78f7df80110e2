import { appendedGuideTest, policiesGuideTest, programGuideTest } from '../../guide.js'

programGuideTest(
  'express',
  new URL('../../../docs/frameworks/express.md', import.meta.url),
  new URL('..', import.meta.url),
)

// The credits page builds on this guide's program.
appendedGuideTest(
  'credits',
  new URL('../../../docs/credits.md', import.meta.url),
  new URL('..', import.meta.url),
)

// The policies page shows the guards with roles and queries in every framework: this one's block.
policiesGuideTest('express', new URL('..', import.meta.url))
