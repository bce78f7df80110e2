import { policiesGuideTest, programGuideTest } from '../../guide.js'

programGuideTest(
  'nestjs',
  new URL('../../../docs/frameworks/nestjs.md', import.meta.url),
  new URL('..', import.meta.url),
)

// The policies page shows the guards with roles and queries in every framework: this one's block.
policiesGuideTest('nestjs', new URL('..', import.meta.url))
