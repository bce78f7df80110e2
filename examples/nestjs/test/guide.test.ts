import { appendedGuideTest, programGuideTest } from '../../guide.js'

programGuideTest(
  'nestjs',
  new URL('../../../docs/frameworks/nestjs.md', import.meta.url),
  new URL('..', import.meta.url),
)

// The policies page shows the guards with roles and queries in every framework: this one's block.
appendedGuideTest(
  'policies (nestjs)',
  new URL('../../../docs/policies.md', import.meta.url),
  new URL('..', import.meta.url),
  'src/main.ts',
  'ts nestjs',
)
