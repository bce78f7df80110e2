import { guideTest } from '../../guide.js'

guideTest(
  'nestjs',
  new URL('../../../docs/frameworks/nestjs.md', import.meta.url),
  new URL('..', import.meta.url),
)
