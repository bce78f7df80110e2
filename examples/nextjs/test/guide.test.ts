import { guideTest } from '../../guide.js'

guideTest(
  'fetch (Next.js)',
  new URL('../../../docs/frameworks/fetch.md', import.meta.url),
  new URL('..', import.meta.url),
  'lib/keyward.ts',
)
