import { programGuideTest } from '../../guide.js'

programGuideTest(
  'nestjs',
  new URL('../../../docs/frameworks/nestjs.md', import.meta.url),
  new URL('..', import.meta.url),
)
