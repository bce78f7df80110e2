// Every key route refuses a query parameter it does not read, as bodies refuse unknown fields.
import { describe, expect, it } from 'vitest'
import { openApiDocument } from '../openapi/document.js'
import { world } from '../test/key-routes-world.js'

// biome-ignore lint/suspicious/noExplicitAny: a JSON document walked by path in tests
type Json = Record<string, any>

// A name near none the routes read: the refusal lists those the route takes.
const STRANGER = 'zqxwvkjh'

/** The query parameters the document declares for an operation, by name. */
function declared(method: string, path: string): string[] {
  const document = openApiDocument() as Json
  const operation = document.paths[path][method]
  return (operation.parameters ?? [])
    .map((parameter: { $ref: string }) => document.components.parameters[parameter.$ref.split('/').pop()!])
    .filter((parameter: Json) => parameter.in === 'query')
    .map((parameter: Json) => parameter.name)
}

describe('the query of the key routes', () => {
  it('of every route is exactly what the OpenAPI document declares: any other name is 422 extra_forbidden', async () => {
    const { routes, call, d1, keyward } = await world({ listProjects: true })
    const developerKeyId = (await keyward.listKeys({ type: 'developer', id: 'd1' }))[0]!.id
    const apiKeyId = (await keyward.issueProjectKey('p1')).record.id
    expect(routes.length).toBeGreaterThan(20)
    for (const route of routes) {
      const template = route.path.replace(/:(\w+)/g, '{$1}')
      const path = route.path
        .replace(':project_id', 'p1')
        .replace(':key_id', route.path.startsWith('/api/v1/auth/') ? developerKeyId : apiKeyId)
      const answer = await call(route.method, `${path}?${STRANGER}=1`, { key: d1 })
      const what = `${route.method} ${route.path}`
      expect(answer.status, what).toBe(422)
      const [detail] = answer.json.detail
      expect([detail.type, detail.loc], what).toEqual(['extra_forbidden', ['query', STRANGER]])
      // The names the refusal lists are those the route reads.
      const accepted = [...detail.msg.matchAll(/`([^`]+)`/g)].map((m) => m[1]).slice(1)
      expect(accepted.sort(), what).toEqual(declared(route.method.toLowerCase(), template).sort())
      if (accepted.length === 0) expect(detail.msg, what).toMatch(/this takes no query parameters\.$/)
    }
  })

  it('names the parameter a typo meant, on each listing', async () => {
    const { call, d1 } = await world({ listProjects: true })
    for (const [path, typo, meant] of [
      ['/api/v1/projects/p1/api-keys?staus=active', 'staus', 'status'],
      ['/api/v1/auth/developer-keys?limit=5&qq=ci', 'qq', 'q'],
      ['/api/v1/projects?limt=5', 'limt', 'limit'],
      ['/api/v1/projects/p1/usage?granularty=day', 'granularty', 'granularity'],
      ['/api/v1/auth/usage?keyId=x', 'keyId', 'key_id'],
      ['/api/v1/audit?project=p1', 'project', 'project_id'],
      ['/api/v1/audit?actoin=key.issued', 'actoin', 'action'],
    ] as const) {
      const answer = await call('GET', path, { key: d1 })
      expect([answer.status, answer.headers['cache-control'], answer.json.detail], path).toEqual([
        422,
        'no-store',
        [
          {
            loc: ['query', typo],
            msg: `Unknown query parameter \`${typo}\`: did you mean \`${meant}\`?`,
            type: 'extra_forbidden',
          },
        ],
      ])
    }
  })

  it('is read after the credential: an unauthenticated or foreign caller gets the answer it would without the query', async () => {
    const { call, d2 } = await world()
    for (const [path, key] of [
      ['/api/v1/projects/p1/api-keys', undefined],
      ['/api/v1/projects/p1/api-keys', d2],
      ['/api/v1/auth/developer-keys', 'ak_short'],
    ] as const) {
      const plain = await call('GET', path, key ? { key } : {})
      const queried = await call('GET', `${path}?staus=active`, key ? { key } : {})
      expect(plain.status).toBeGreaterThanOrEqual(401)
      expect(plain.status).toBeLessThan(422)
      expect(queried).toEqual(plain)
    }
  })

  it('is read before the path and the body, and a refused request changes nothing', async () => {
    const { call, d1, keyward } = await world()
    const { record } = await keyward.issueProjectKey('p1', { name: 'kept' })
    const before = await keyward.listKeys({ type: 'project', id: 'p1' })
    for (const [method, path, body] of [
      ['DELETE', `/api/v1/projects/p1/api-keys/${record.id}?force=true`, undefined],
      ['DELETE', '/api/v1/projects/p1/api-keys/not-a-uuid?force=true', undefined],
      ['POST', '/api/v1/projects/p1/api-keys?dry_run=1', '{"name":"new"}'],
      ['POST', '/api/v1/projects/p1/api-keys?dry_run=1', '{"nmae":"new"}'],
      ['POST', `/api/v1/projects/p1/api-keys/${record.id}/roll?grace_seconds=0`, '{}'],
      ['PATCH', `/api/v1/projects/p1/api-keys/${record.id}?expires_in_days=1`, '{"metadata":{"a":1}}'],
    ] as const) {
      const answer = await call(method, path, { key: d1, ...(body ? { body } : {}) })
      expect([answer.status, answer.json.detail[0].type, answer.json.detail[0].loc[0]], path).toEqual([
        422,
        'extra_forbidden',
        'query',
      ])
    }
    expect(await keyward.listKeys({ type: 'project', id: 'p1' })).toEqual(before)
  })
})
