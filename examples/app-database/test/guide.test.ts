import { guideTest } from '../../guide.js'

guideTest(
  'application database',
  new URL('../../../docs/app-database.md', import.meta.url),
  new URL('..', import.meta.url),
)
