import { describe, expectTypeOf, it } from 'vitest'
import { MemoryKeyStore } from '../store/memory.js'
import { createKeyward } from './keyward.js'
import type {
  AuthContext,
  AuthContextFor,
  DeveloperAuth,
  ElevatedAuth,
  ProjectAuth,
  Requirement,
} from './requirements.js'

describe('requirement types', () => {
  it('gives each requirement its own context type', () => {
    expectTypeOf<AuthContextFor<{ scope: 'developer' }>>().toEqualTypeOf<DeveloperAuth>()
    expectTypeOf<AuthContextFor<{ scope: 'project'; projectId: string }>>().toEqualTypeOf<ProjectAuth>()
    expectTypeOf<AuthContextFor<{ scope: 'elevated'; projectId: string }>>().toEqualTypeOf<ElevatedAuth>()
    expectTypeOf<AuthContextFor<Requirement>>().toEqualTypeOf<AuthContext>()
  })

  it('types authenticate by the literal requirement it is given', () => {
    const keyward = createKeyward({ store: new MemoryKeyStore() })
    const project = () => keyward.authenticate({ projectKey: 'k' }, { scope: 'project', projectId: 'p' })
    expectTypeOf(project).returns.resolves.toEqualTypeOf<ProjectAuth>()
    expectTypeOf(project).returns.resolves.toHaveProperty('projectId').toEqualTypeOf<string>()
    const developer = () => keyward.authenticate({ developerKey: 'k' }, { scope: 'developer' })
    expectTypeOf(developer).returns.resolves.toEqualTypeOf<DeveloperAuth>()
    // Without a projectId, any project's key: the context says whose.
    const anyProject = () => keyward.authenticate({ projectKey: 'k' }, { scope: 'project' })
    expectTypeOf(anyProject).returns.resolves.toEqualTypeOf<ProjectAuth>()
    // @ts-expect-error an elevated requirement needs its projectId
    keyward.authenticate({ projectKey: 'k' }, { scope: 'elevated' }).catch(() => {})
  })
})
