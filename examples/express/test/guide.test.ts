import { guideTest } from '../../guide.js'

guideTest(
  'express',
  new URL('../../../docs/frameworks/express.md', import.meta.url),
  new URL('..', import.meta.url),
)
