import { filesGuideTest, policiesGuideTest } from '../../guide.js'

filesGuideTest(
  'fetch (Next.js)',
  new URL('../../../docs/frameworks/fetch.md', import.meta.url),
  new URL('..', import.meta.url),
)

// The policies page shows the guards with roles and queries in every framework: this one's block.
policiesGuideTest('fetch', new URL('..', import.meta.url), 'lib/keyward.ts')
