// A consumer of @keyward/core, as the getting-started guide shows it. The consumer test compiles
// this one file as ESM (.mts) and as CommonJS (.cts) under `module: node16`, runs both outputs,
// and typechecks it again under `moduleResolution: bundler`.
import assert from 'node:assert/strict'
import {
  type AuthContext,
  createKeyward,
  displayKey,
  ErrorType,
  errorBody,
  isKeywardError,
  KEY_SCAN_PATTERN,
  type KeywardEvent,
  MemoryKeyStore,
  type ProjectAuth,
} from '@keyward/core'
import { runFixture } from './fixture.js'

runFixture('@keyward/core', async () => {
  const events: KeywardEvent[] = []
  const keyward = createKeyward({
    store: new MemoryKeyStore(),
    projectOwner: (projectId) => (projectId === 'proj_1' ? 'dev_1' : null),
    onEvent: (event) => events.push(event),
  })

  const { key: developerKey } = await keyward.issueDeveloperKey('dev_1', { name: 'laptop' })
  const { key: projectKey, record } = await keyward.issueProjectKey('proj_1', { name: 'default' })
  assert.match(projectKey, /^ak_[A-Za-z0-9_-]{32}$/)
  assert.equal(record.keyPrefix, projectKey.slice(0, 8))
  assert.equal(displayKey(projectKey), `${projectKey.slice(0, 8)}...`)

  const project: ProjectAuth = await keyward.authenticate(
    { projectKey },
    { scope: 'project', projectId: 'proj_1' },
  )
  assert.equal(project.projectId, 'proj_1')

  const elevated: AuthContext = await keyward.authenticate(
    { developerKey, projectKey },
    { scope: 'elevated', projectId: 'proj_1' },
  )
  assert.equal(elevated.scope, 'elevated')

  const failure = await keyward.authenticate({ projectKey }, { scope: 'project', projectId: 'proj_2' }).then(
    () => undefined,
    (error: unknown) => error,
  )
  assert.ok(isKeywardError(failure), 'a wrong project is refused with a KeywardError')
  assert.equal(failure.status, 403)
  assert.equal(failure.type, ErrorType.projectMismatch)
  assert.deepEqual(errorBody(failure).detail[0]?.loc, ['header', 'x-api-key'])
  assert.ok(!JSON.stringify(errorBody(failure)).includes(projectKey), 'the body never holds the key')
  assert.ok(events.some((event) => event.type === 'auth.failed'))

  assert.deepEqual(
    [...`log: ${projectKey}.`.matchAll(KEY_SCAN_PATTERN)].map((m) => m[0]),
    [projectKey],
  )
  return 'issued, authenticated, refused with 403 project_mismatch'
})
