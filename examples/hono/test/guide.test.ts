import { guideTest } from '../../guide.js'

guideTest(
  'hono',
  new URL('../../../docs/frameworks/hono.md', import.meta.url),
  new URL('..', import.meta.url),
)
