import SwaggerParser from '@apidevtools/swagger-parser'
import { describe, expect, it } from 'vitest'
import { ERROR_STATUS } from '../errors/types.js'
import { createKeyRoutes } from '../http/key-routes.js'
import { createKeyward } from '../service/keyward.js'
import { MemoryKeyStore } from '../store/memory.js'
import { openApiDocument } from './document.js'

// biome-ignore lint/suspicious/noExplicitAny: a JSON document walked by path in tests
type Json = Record<string, any>

// The design's HTTP API table, row by row.
const DESIGN_TABLE = [
  'post /api/v1/auth/developer-keys',
  'get /api/v1/auth/developer-keys',
  'delete /api/v1/auth/developer-keys/{key_id}',
  'post /api/v1/projects',
  'delete /api/v1/projects/{project_id}',
  'post /api/v1/projects/{project_id}/api-keys',
  'get /api/v1/projects/{project_id}/api-keys',
  'delete /api/v1/projects/{project_id}/api-keys/{key_id}',
  'post /api/v1/projects/{project_id}/access-tokens',
  'post /api/v1/generation/generations-v2',
  'delete /api/v1/generation/generations-v2/{generation_id}',
  'post /api/v1/auth/developer-keys/{key_id}/roll',
  'post /api/v1/projects/{project_id}/api-keys/{key_id}/roll',
  'post /api/v1/auth/developer-keys/{key_id}/activate',
  'post /api/v1/projects/{project_id}/api-keys/{key_id}/activate',
  'post /api/v1/secret-scanning/github',
  // Issue 25: what the administrative console needs.
  'get /api/v1/projects',
  'patch /api/v1/auth/developer-keys/{key_id}',
  'patch /api/v1/projects/{project_id}/api-keys/{key_id}',
  // Issue 26: the audit log.
  'get /api/v1/audit',
  // Issue 29: verification as a service.
  'post /api/v1/keys/verify',
  // Issue 27: credits of API keys.
  'post /api/v1/projects/{project_id}/api-keys/{key_id}/credits',
  // Issue 26: usage counts.
  'get /api/v1/auth/usage',
  'get /api/v1/projects/{project_id}/usage',
  'get /openapi.json',
  'get /healthz',
  // Issue 43: the console's key page.
  'get /api/v1/auth/developer-keys/{key_id}',
  'get /api/v1/projects/{project_id}/api-keys/{key_id}',
  // Issue 39: identities.
  'post /api/v1/projects/{project_id}/identities',
  'get /api/v1/projects/{project_id}/identities',
  'get /api/v1/projects/{project_id}/identities/{identity_id}',
  'patch /api/v1/projects/{project_id}/identities/{identity_id}',
  'delete /api/v1/projects/{project_id}/identities/{identity_id}',
  'get /api/v1/projects/{project_id}/identities/{identity_id}/keys',
  'get /api/v1/projects/{project_id}/identities/{identity_id}/usage',
  'post /api/v1/projects/{project_id}/identities/{identity_id}/credits',
  // Issue 40: roles.
  'post /api/v1/projects/{project_id}/roles',
  'get /api/v1/projects/{project_id}/roles',
  'get /api/v1/projects/{project_id}/roles/{role_id}',
  'patch /api/v1/projects/{project_id}/roles/{role_id}',
  'delete /api/v1/projects/{project_id}/roles/{role_id}',
  // Issue 42: webhooks.
  'post /api/v1/webhooks/endpoints',
  'get /api/v1/webhooks/endpoints',
  'get /api/v1/webhooks/endpoints/{endpoint_id}',
  'patch /api/v1/webhooks/endpoints/{endpoint_id}',
  'delete /api/v1/webhooks/endpoints/{endpoint_id}',
  'post /api/v1/webhooks/endpoints/{endpoint_id}/roll-secret',
  'post /api/v1/webhooks/endpoints/{endpoint_id}/redeliver',
  'post /api/v1/webhooks/endpoints/{endpoint_id}/test',
  'get /api/v1/webhooks/endpoints/{endpoint_id}/attempts',
]

const operationsOf = (document: Json) =>
  Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method} ${path}`),
  )

describe('openApiDocument', () => {
  it('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    const document = openApiDocument({ servers: [{ url: 'http://127.0.0.1:3000' }] })
    // validate() dereferences in place: give it a copy.
    const validated = (await SwaggerParser.validate(structuredClone(document) as never)) as Json
    expect(validated.openapi).toBe('3.1.0')
  })

  it('refuses a broken document, so the validation above can fail', async () => {
    const document = structuredClone(openApiDocument()) as Json
    document.paths['/healthz'].get.responses['200'].content['application/json'].schema = {
      $ref: '#/components/schemas/Nope',
    }
    await expect(SwaggerParser.validate(document as never)).rejects.toThrow(/Nope/)
  })

  it("covers every endpoint of the design's HTTP API table, and no other", () => {
    expect(operationsOf(openApiDocument()).sort()).toEqual([...DESIGN_TABLE].sort())
  })

  it('declares the security schemes and uses them', () => {
    const document = openApiDocument() as Json
    expect(document.components.securitySchemes).toMatchObject({
      DeveloperKey: { type: 'apiKey', in: 'header', name: 'X-Developer-Key' },
      ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      BearerToken: { type: 'http', scheme: 'bearer' },
      ServiceToken: { type: 'http', scheme: 'bearer' },
    })
    const paths = document.paths as Json
    expect(paths['/api/v1/projects/{project_id}'].delete.security).toEqual([{ DeveloperKey: [], ApiKey: [] }])
    expect(paths['/api/v1/projects/{project_id}/access-tokens'].post.security).toEqual([{ ApiKey: [] }])
    expect(paths['/api/v1/generation/generations-v2'].post.security).toEqual([{ BearerToken: [] }])
    expect(paths['/healthz'].get.security).toEqual([])
    // Either credential, never the key being verified.
    expect(paths['/api/v1/keys/verify'].post.security).toEqual([{ DeveloperKey: [] }, { ServiceToken: [] }])
  })

  it('names every error type, each under its status', () => {
    const document = openApiDocument() as Json
    const listed = new Map<string, string>()
    for (const [name, response] of Object.entries(document.components.responses as Json)) {
      const types = response.content['application/json'].schema.properties.detail.items.properties.type.enum
      for (const type of types) listed.set(type, name)
    }
    for (const [type, status] of Object.entries(ERROR_STATUS)) expect(listed.get(type)).toBe(`Error${status}`)
    const envelope = document.components.schemas.ErrorBody.properties.detail.items.properties.type.enum
    expect([...envelope].sort()).toEqual(Object.keys(ERROR_STATUS).sort())
  })

  it('says Retry-After on 429 and 503, and WWW-Authenticate on 401', () => {
    const { responses } = (openApiDocument() as Json).components
    expect(Object.keys(responses.Error429.headers)).toContain('Retry-After')
    expect(Object.keys(responses.Error503.headers)).toContain('Retry-After')
    expect(Object.keys(responses.Error401.headers)).toContain('WWW-Authenticate')
  })

  it("with operations 'key-routes', holds exactly what createKeyRoutes mounts", () => {
    // Over a store without an audit log, the routes do not mount GET /api/v1/audit, nor the
    // identities' and roles' routes over a store without them (no store call is made here: a
    // store whose appendAudit, identities and roles are hidden will do).
    const plain = Object.create(new MemoryKeyStore(), {
      appendAudit: { value: undefined },
      identities: { value: undefined },
      roles: { value: undefined },
    })
    const auditing = createKeyward({ store: new MemoryKeyStore(), projectOwner: () => null })
    const silent = createKeyward({ store: plain, projectOwner: () => null })
    expect([auditing.auditing, silent.auditing]).toEqual([true, false])
    for (const [createProject, listProjects, audit, verify] of [
      [false, false, true, true],
      [true, false, false, true],
      [false, true, true, true],
      [true, true, false, false],
    ] as const) {
      const keyward = audit ? auditing : silent
      const routes = createKeyRoutes(keyward, {
        ...(createProject ? { createProject: () => ({}) as never } : {}),
        ...(listProjects ? { listProjects: () => ({}) as never } : {}),
        ...(verify ? {} : { verify: false }),
      })
      const mounted = routes.map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
      expect(mounted.includes('post /api/v1/keys/verify')).toBe(verify)
      expect(mounted.includes('post /api/v1/projects/{project_id}/identities')).toBe(audit)
      expect(mounted.includes('delete /api/v1/projects/{project_id}/roles/{role_id}')).toBe(audit)
      const documented = operationsOf(
        openApiDocument({
          operations: 'key-routes',
          createProject,
          listProjects,
          audit,
          verify,
          identities: audit,
          roles: audit,
        }),
      )
      expect(documented.sort()).toEqual(mounted.sort())
    }
  })

  it('documents the paging parameters of the listings, and the 422 of a bad one', () => {
    const paths = (openApiDocument() as Json).paths
    for (const [path, method] of [
      ['/api/v1/auth/developer-keys', 'get'],
      ['/api/v1/projects/{project_id}/api-keys', 'get'],
      ['/api/v1/projects', 'get'],
      ['/api/v1/audit', 'get'],
      ['/api/v1/projects/{project_id}/identities', 'get'],
      ['/api/v1/projects/{project_id}/identities/{identity_id}/keys', 'get'],
      ['/api/v1/projects/{project_id}/roles', 'get'],
    ] as const) {
      const operation = paths[path][method]
      const refs = operation.parameters.map((p: Json) => p.$ref)
      expect(refs).toEqual(
        expect.arrayContaining(['#/components/parameters/limit', '#/components/parameters/cursor']),
      )
      expect(Object.keys(operation.responses)).toContain('422')
    }
  })

  it('names the permission each generation operation requires, and its refusal', () => {
    const paths = openApiDocument().paths as Json
    const generations = '/api/v1/generation/generations-v2'
    for (const [operation, permission] of [
      [paths[generations].post, 'generations:write'],
      [paths[`${generations}/{generation_id}`].delete, 'generations:delete'],
    ] as const) {
      expect(operation.description).toContain(`the permission \`${permission}\``)
      expect(operation.description).toContain('403 `permission_denied`')
      expect(Object.keys(operation.responses)).toContain('403')
    }
  })

  it('closes every request body object of a fixed shape (additionalProperties: false), nested ones too', async () => {
    const document = (await SwaggerParser.dereference(structuredClone(openApiDocument()) as never)) as Json
    const open: string[] = []
    const closed: string[] = []
    // Walks a schema: an object with fields must be closed; a free-form one (metadata, a
    // generation's body) says so with `additionalProperties: true`.
    const walk = (schema: Json | undefined, at: string): void => {
      if (!schema || typeof schema !== 'object') return
      if (schema.type === 'object') {
        if (schema.additionalProperties === false) closed.push(at)
        else if (schema.additionalProperties !== true || Object.keys(schema.properties ?? {}).length > 0) {
          open.push(at)
        }
      }
      for (const [field, sub] of Object.entries((schema.properties ?? {}) as Json))
        walk(sub, `${at}.${field}`)
      for (const member of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) walk(member, at)
      walk(schema.items, `${at}[]`)
    }
    for (const [path, item] of Object.entries(document.paths as Json)) {
      // GitHub's alert format, which GitHub may extend: read as it comes.
      if (path === '/api/v1/secret-scanning/github') continue
      for (const [method, operation] of Object.entries(item as Json)) {
        walk(operation.requestBody?.content?.['application/json']?.schema, `${method} ${path}`)
      }
    }
    expect(open).toEqual([])
    expect(closed).toContain('post /api/v1/projects/{project_id}/api-keys')
    expect(closed).toContain('post /api/v1/projects/{project_id}/api-keys.refill')
    expect(closed).toContain('post /api/v1/keys/verify')
    expect(closed).toContain('post /api/v1/projects/{project_id}/identities')
    expect(closed).toContain('post /api/v1/projects/{project_id}/identities.ratelimits[]')
    expect(closed).toContain('patch /api/v1/projects/{project_id}/identities/{identity_id}')
    expect(closed).toContain('post /api/v1/projects/{project_id}/roles')
    expect(closed).toContain('patch /api/v1/projects/{project_id}/roles/{role_id}')
  })

  it('is plain JSON: what JSON.stringify writes reads back the same', () => {
    const document = openApiDocument()
    expect(JSON.parse(JSON.stringify(document))).toEqual(document)
  })
})
