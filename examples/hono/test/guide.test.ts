import { programGuideTest } from '../../guide.js'

programGuideTest(
  'hono',
  new URL('../../../docs/frameworks/hono.md', import.meta.url),
  new URL('..', import.meta.url),
)
