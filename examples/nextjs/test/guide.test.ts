import { filesGuideTest } from '../../guide.js'

filesGuideTest(
  'fetch (Next.js)',
  new URL('../../../docs/frameworks/fetch.md', import.meta.url),
  new URL('..', import.meta.url),
)
