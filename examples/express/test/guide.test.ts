import { programGuideTest } from '../../guide.js'

programGuideTest(
  'express',
  new URL('../../../docs/frameworks/express.md', import.meta.url),
  new URL('..', import.meta.url),
)
