import { describe, expect, it } from 'vitest'
import { keyHref, PROJECT_SECTIONS, projectHref, route } from './routes'

describe('route', () => {
  it('reads every page from its address, and the address of each back', () => {
    expect(route('#/projects')).toEqual({ page: 'projects' })
    expect(route('')).toEqual({ page: 'projects' })
    expect(route(projectHref('p 1'))).toEqual({ page: 'project', projectId: 'p 1', section: 'keys' })
    expect(route(projectHref('p1', 'usage'))).toEqual({ page: 'project', projectId: 'p1', section: 'usage' })
    expect(route(keyHref('k1', 'p/1'))).toEqual({ page: 'key', projectId: 'p/1', keyId: 'k1' })
    expect(route('#/developer-keys')).toEqual({ page: 'developer-keys' })
    expect(route(keyHref('k1'))).toEqual({ page: 'developer-key', keyId: 'k1' })
    expect(route('#/audit')).toEqual({ page: 'audit' })
  })

  it('has an address for every section of a project', () => {
    for (const { section } of PROJECT_SECTIONS) {
      expect(route(projectHref('p1', section))).toEqual({ page: 'project', projectId: 'p1', section })
    }
  })

  it('takes an address it does not know to the projects', () => {
    for (const hash of ['#/nowhere', '#/projects/p1/billing', '#/audit/x', '#/%E0%A4%A']) {
      expect(route(hash)).toEqual({ page: 'projects' })
    }
  })
})
