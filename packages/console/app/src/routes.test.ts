import { describe, expect, it } from 'vitest'
import {
  identitiesHref,
  identityHref,
  keyHref,
  NAVIGATION,
  PROJECT_SECTIONS,
  projectHref,
  route,
  webhookHref,
} from './routes'

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
    expect(route('#/webhooks')).toEqual({ page: 'webhooks' })
    expect(route(webhookHref('e/1'))).toEqual({ page: 'webhook', endpointId: 'e/1' })
  })

  it('has a page for every entry of the navigation', () => {
    for (const { hash } of NAVIGATION) expect(route(hash).page, hash).toBe(hash.slice(2))
  })

  it('has an address for every section of a project', () => {
    for (const { section } of PROJECT_SECTIONS) {
      expect(route(projectHref('p1', section))).toEqual({ page: 'project', projectId: 'p1', section })
    }
  })

  it("reads the identities' search from the address, and an identity's page", () => {
    expect(route(identitiesHref('p1'))).toEqual({ page: 'project', projectId: 'p1', section: 'identities' })
    const search = identitiesHref('p1', 'tenant:acme/eu & co')
    expect(search).toBe('#/projects/p1/identities?q=tenant%3Aacme%2Feu+%26+co')
    const found = { page: 'project', projectId: 'p1', section: 'identities', search: 'tenant:acme/eu & co' }
    expect(route(search)).toEqual(found)
    // The address of the lookup by external id that came before is read as a search for it.
    expect(route('#/projects/p1/identities?external_id=tenant%3Aacme%2Feu+%26+co')).toEqual(found)
    // An empty search is none; another section keeps no search.
    expect(route('#/projects/p1/identities?q=')).toEqual(route(identitiesHref('p1')))
    expect(route('#/projects/p1/usage?q=x')).toEqual({
      page: 'project',
      projectId: 'p1',
      section: 'usage',
    })
    expect(route(identityHref('p1', 'i/1'))).toEqual({ page: 'identity', projectId: 'p1', identityId: 'i/1' })
  })

  it('takes an address it does not know to the projects', () => {
    for (const hash of [
      '#/nowhere',
      '#/projects/p1/billing',
      '#/audit/x',
      '#/webhooks/e1/attempts',
      '#/%E0%A4%A',
      '#/projects/p1/identities/i1/x',
    ]) {
      expect(route(hash)).toEqual({ page: 'projects' })
    }
  })
})
