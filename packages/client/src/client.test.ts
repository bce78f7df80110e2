import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { inspect } from 'node:util'
import {
  ClientConfigError,
  createKeyRoutes,
  createKeyward,
  ErrorType,
  errorBody,
  generateKey,
  type KeyRecord,
  KeywardError,
  keyToJson,
  MemoryKeyStore,
} from '@keyward/core'
import { afterEach, describe, expect, it } from 'vitest'
import { createClient, type KeywardClient } from './client.js'
import { KeywardApiError, KeywardNetworkError } from './errors.js'

interface Seen {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

interface Reply {
  readonly status: number
  readonly body?: unknown
  readonly raw?: string
  readonly headers?: Record<string, string>
}

interface FakeServer {
  readonly baseUrl: string
  readonly seen: Seen[]
}

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))))
})

/** A server on 127.0.0.1 (ephemeral port) that records each request and answers with `respond`. */
async function fakeServer(respond: (request: Seen) => Reply | Promise<Reply> | null): Promise<FakeServer> {
  const seen: Seen[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => {
      body += chunk
    })
    req.on('end', async () => {
      const request = { method: req.method!, path: req.url!, headers: req.headers, body }
      seen.push(request)
      const reply = await respond(request)
      if (reply === null) return // never answer
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
      res.end(reply.raw ?? JSON.stringify(reply.body))
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { baseUrl: `http://127.0.0.1:${port}`, seen }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected the call to reject')
}

const developerKey = generateKey()
const projectKey = generateKey()
const accessToken = 'eyJhbGciOiJIUzI1NiJ9.e30.signature'
const verdict = {
  valid: true,
  code: null,
  key_id: 'k1',
  owner: { type: 'project', id: 'p1' },
  permissions: null,
  metadata: null,
  remaining: null,
  expires_at: null,
  ratelimit: null,
}
const listed = {
  id: 'k1',
  key_prefix: 'ak_Ab3xY',
  display: 'ak_Ab3xY...',
  name: 'ci',
  active: true,
  created_at: '2025-01-01T00:00:00.000Z',
  expires_at: null,
  last_used_at: '2025-01-02T00:00:00.000Z',
  rotation_due: false,
}
const previous_key = { id: 'k0', expires_at: '2025-01-03T00:00:00.000Z' }
const identity = {
  id: 'i1',
  project_id: 'p1',
  external_id: 'customer_acme',
  metadata: { plan: 'pro' },
  ratelimits: [{ name: 'requests', limit: 10, duration: 1000 }],
  remaining: null,
  refill: null,
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:00.000Z',
}
const role = {
  id: 'r1',
  project_id: 'p1',
  name: 'billing',
  permissions: ['billing:read', 'billing:*'],
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:00.000Z',
}

// Every endpoint of the HTTP API: what the call sends, and that it resolves to the answer's body.
const usage = {
  granularity: 'hour',
  from: '2026-01-01T00:00:00.000Z',
  to: '2026-01-02T00:00:00.000Z',
  usage: [{ start: '2026-01-01T10:00:00.000Z', key_id: crypto.randomUUID(), outcome: 'accepted', count: 3 }],
}

// The webhook endpoints' calls: each with the developer key, its path and its body.
function webhookEndpoints() {
  const id = '0b6c3c1e-4f7a-4d2b-9a51-2f8d7c9e1a03'
  const base = '/api/v1/webhooks/endpoints'
  const endpoint = {
    id,
    url: 'https://hooks.example.com/keyward',
    description: null,
    project_ids: null,
    event_types: null,
    previous_secret_expires_at: null,
    failing_since: null,
    disabled_at: null,
    created_at: '2026-03-10T12:00:00.000Z',
    updated_at: '2026-03-10T12:00:00.000Z',
  }
  const withSecret = { ...endpoint, secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD' }
  const range = { from: '2026-03-10T00:00:00.000Z', to: '2026-03-11T00:00:00.000Z' }
  const send = { developer: true } as const
  return [
    {
      name: 'webhooks.create',
      call: (c: KeywardClient) => c.webhooks.create({ url: endpoint.url }),
      method: 'POST',
      path: base,
      send,
      body: { url: endpoint.url },
      reply: { status: 201, body: withSecret },
    },
    {
      name: 'webhooks.list',
      call: (c: KeywardClient) => c.webhooks.list(),
      method: 'GET',
      path: base,
      send,
      reply: { status: 200, body: { endpoints: [endpoint] } },
    },
    {
      name: 'webhooks.get',
      call: (c: KeywardClient) => c.webhooks.get(id),
      method: 'GET',
      path: `${base}/${id}`,
      send,
      reply: { status: 200, body: endpoint },
    },
    {
      name: 'webhooks.update',
      call: (c: KeywardClient) => c.webhooks.update(id, { disabled: false }),
      method: 'PATCH',
      path: `${base}/${id}`,
      send,
      body: { disabled: false },
      reply: { status: 200, body: endpoint },
    },
    {
      name: 'webhooks.delete',
      call: (c: KeywardClient) => c.webhooks.delete(id),
      method: 'DELETE',
      path: `${base}/${id}`,
      send,
      reply: { status: 200, body: { id, deleted: true } },
    },
    {
      name: 'webhooks.rollSecret',
      call: (c: KeywardClient) => c.webhooks.rollSecret(id),
      method: 'POST',
      path: `${base}/${id}/roll-secret`,
      send,
      body: {},
      reply: { status: 200, body: withSecret },
    },
    {
      name: 'webhooks.attempts',
      call: (c: KeywardClient) => c.webhooks.attempts(id),
      method: 'GET',
      path: `${base}/${id}/attempts`,
      send,
      reply: { status: 200, body: { attempts: [] } },
    },
    {
      name: 'webhooks.redeliver',
      call: (c: KeywardClient) => c.webhooks.redeliver(id, range),
      method: 'POST',
      path: `${base}/${id}/redeliver`,
      send,
      body: range,
      reply: { status: 202, body: { redelivered: 3 } },
    },
    {
      name: 'webhooks.test',
      call: (c: KeywardClient) => c.webhooks.test(id),
      method: 'POST',
      path: `${base}/${id}/test`,
      send,
      reply: { status: 202, body: { event_id: `msg_${'a'.repeat(32)}`, type: 'webhook.test' } },
    },
  ]
}

const endpoints: {
  name: string
  call: (client: KeywardClient) => Promise<unknown>
  method: string
  path: string
  send: { developer?: true; project?: true; bearer?: true }
  body?: unknown
  reply: Reply
}[] = [
  ...webhookEndpoints(),
  {
    name: 'developerKeys.create',
    call: (c) => c.developerKeys.create({ name: 'laptop' }),
    method: 'POST',
    path: '/api/v1/auth/developer-keys',
    send: { developer: true },
    body: { name: 'laptop' },
    reply: { status: 201, body: { ...listed, key: generateKey(), developer_id: 'dev_1' } },
  },
  {
    name: 'developerKeys.create without a name',
    call: (c) => c.developerKeys.create(),
    method: 'POST',
    path: '/api/v1/auth/developer-keys',
    send: { developer: true },
    body: {},
    reply: { status: 201, body: { ...listed, key: generateKey(), developer_id: 'dev_1', name: null } },
  },
  {
    name: 'developerKeys.list',
    call: (c) => c.developerKeys.list(),
    method: 'GET',
    path: '/api/v1/auth/developer-keys',
    send: { developer: true },
    reply: { status: 200, body: { keys: [{ ...listed, developer_id: 'dev_1' }] } },
  },
  {
    name: 'developerKeys.list with a page',
    call: (c) => c.developerKeys.list({ limit: 50, cursor: 'WyIy+/=' }),
    method: 'GET',
    path: '/api/v1/auth/developer-keys?limit=50&cursor=WyIy%2B%2F%3D',
    send: { developer: true },
    reply: { status: 200, body: { keys: [], next_cursor: null } },
  },
  {
    name: 'apiKeys.list with a search and a status',
    call: (c) => c.apiKeys.list('p1', { limit: 50, q: 'ak_Ab3 & co', status: 'revoked' }),
    method: 'GET',
    path: '/api/v1/projects/p1/api-keys?limit=50&q=ak_Ab3%20%26%20co&status=revoked',
    send: { developer: true },
    reply: { status: 200, body: { keys: [], next_cursor: null } },
  },
  {
    name: 'audit.list of one key, one action, a range',
    call: (c) =>
      c.audit.list({
        keyId: 'k1',
        action: 'key.revoked',
        from: new Date('2026-01-01T00:00:00Z'),
        to: '2026-01-02T00:00:00+01:00',
      }),
    method: 'GET',
    path: '/api/v1/audit?key_id=k1&action=key.revoked&from=2026-01-01T00%3A00%3A00.000Z&to=2026-01-02T00%3A00%3A00%2B01%3A00',
    send: { developer: true },
    reply: { status: 200, body: { entries: [], next_cursor: null } },
  },
  {
    name: 'developerKeys.get',
    call: (c) => c.developerKeys.get('k1'),
    method: 'GET',
    path: '/api/v1/auth/developer-keys/k1',
    send: { developer: true },
    reply: { status: 200, body: { ...listed, developer_id: 'dev_1' } },
  },
  {
    name: 'apiKeys.get',
    call: (c) => c.apiKeys.get('p/1', 'k1'),
    method: 'GET',
    path: '/api/v1/projects/p%2F1/api-keys/k1',
    send: { developer: true },
    reply: { status: 200, body: { ...listed, project_id: 'p/1' } },
  },
  {
    name: 'developerKeys.setExpiry',
    call: (c) => c.developerKeys.setExpiry('k1', { expires_at: null }),
    method: 'PATCH',
    path: '/api/v1/auth/developer-keys/k1',
    send: { developer: true },
    body: { expires_at: null },
    reply: { status: 200, body: { ...listed, developer_id: 'dev_1' } },
  },
  {
    name: 'projects.list',
    call: (c) => c.projects.list({ limit: 2 }),
    method: 'GET',
    path: '/api/v1/projects?limit=2',
    send: { developer: true },
    reply: {
      status: 200,
      body: {
        projects: [{ id: 'p1', name: 'shop', developer_id: 'dev_1', created_at: listed.created_at }],
        next_cursor: 'abc',
      },
    },
  },
  {
    name: 'apiKeys.setExpiry',
    call: (c) => c.apiKeys.setExpiry('p1', 'k1', { expires_in_days: 30 }),
    method: 'PATCH',
    path: '/api/v1/projects/p1/api-keys/k1',
    send: { developer: true },
    body: { expires_in_days: 30 },
    reply: { status: 200, body: { ...listed, project_id: 'p1' } },
  },
  {
    name: 'apiKeys.update',
    call: (c) =>
      c.apiKeys.update('p1', 'k1', {
        permissions: ['reports:read'],
        ip_allowlist: null,
        metadata: { plan: 'pro' },
      }),
    method: 'PATCH',
    path: '/api/v1/projects/p1/api-keys/k1',
    send: { developer: true },
    body: { permissions: ['reports:read'], ip_allowlist: null, metadata: { plan: 'pro' } },
    reply: {
      status: 200,
      body: { ...listed, project_id: 'p1', permissions: ['reports:read'], metadata: { plan: 'pro' } },
    },
  },
  {
    name: 'apiKeys.changeCredits',
    call: (c) => c.apiKeys.changeCredits('p1', 'k1', { op: 'add', amount: 500 }),
    method: 'POST',
    path: '/api/v1/projects/p1/api-keys/k1/credits',
    send: { developer: true },
    body: { op: 'add', amount: 500 },
    reply: { status: 200, body: { ...listed, project_id: 'p1', remaining: 1500, refill: null } },
  },
  {
    name: 'identities.changeCredits',
    call: (c) => c.identities.changeCredits('p1', 'i1', { op: 'set', amount: 100 }),
    method: 'POST',
    path: '/api/v1/projects/p1/identities/i1/credits',
    send: { developer: true },
    body: { op: 'set', amount: 100 },
    reply: {
      status: 200,
      body: {
        id: 'i1',
        project_id: 'p1',
        external_id: 'customer_acme',
        metadata: null,
        ratelimits: [],
        remaining: 100,
        refill: null,
        created_at: listed.created_at,
        updated_at: listed.created_at,
      },
    },
  },
  {
    name: 'developerKeys.deactivate',
    call: (c) => c.developerKeys.deactivate('k1'),
    method: 'DELETE',
    path: '/api/v1/auth/developer-keys/k1',
    send: { developer: true },
    reply: { status: 200, body: { ...listed, developer_id: 'dev_1', active: false } },
  },
  {
    name: 'developerKeys.activate',
    call: (c) => c.developerKeys.activate('k1'),
    method: 'POST',
    path: '/api/v1/auth/developer-keys/k1/activate',
    send: { developer: true },
    reply: { status: 200, body: { ...listed, developer_id: 'dev_1' } },
  },
  {
    name: 'developerKeys.roll',
    call: (c) => c.developerKeys.roll('k1', { grace_seconds: 60 }),
    method: 'POST',
    path: '/api/v1/auth/developer-keys/k1/roll',
    send: { developer: true },
    body: { grace_seconds: 60 },
    reply: { status: 201, body: { ...listed, key: generateKey(), developer_id: 'dev_1', previous_key } },
  },
  {
    name: 'projects.create',
    call: (c) => c.projects.create({ name: 'shop' }),
    method: 'POST',
    path: '/api/v1/projects',
    send: { developer: true },
    body: { name: 'shop' },
    reply: {
      status: 201,
      body: {
        project: { id: 'p1', name: 'shop', developer_id: 'dev_1', created_at: listed.created_at },
        api_key: { ...listed, key: generateKey(), name: 'default', project_id: 'p1' },
      },
    },
  },
  {
    name: 'projects.delete',
    call: (c) => c.projects.delete('p1'),
    method: 'DELETE',
    path: '/api/v1/projects/p1',
    send: { developer: true, project: true },
    reply: { status: 200, body: { id: 'p1', deleted: true } },
  },
  {
    name: 'apiKeys.create',
    call: (c) => c.apiKeys.create('p1', { name: 'worker', ip_allowlist: ['10.0.0.0/8'], permissions: [] }),
    method: 'POST',
    path: '/api/v1/projects/p1/api-keys',
    send: { developer: true },
    body: { name: 'worker', ip_allowlist: ['10.0.0.0/8'], permissions: [] },
    reply: { status: 201, body: { ...listed, key: generateKey(), project_id: 'p1' } },
  },
  {
    name: 'apiKeys.list',
    call: (c) => c.apiKeys.list('p1'),
    method: 'GET',
    path: '/api/v1/projects/p1/api-keys',
    send: { developer: true },
    reply: { status: 200, body: { keys: [{ ...listed, project_id: 'p1' }] } },
  },
  {
    name: 'apiKeys.deactivate',
    call: (c) => c.apiKeys.deactivate('p1', 'k1'),
    method: 'DELETE',
    path: '/api/v1/projects/p1/api-keys/k1',
    send: { developer: true },
    reply: { status: 200, body: { ...listed, project_id: 'p1', active: false } },
  },
  {
    name: 'apiKeys.activate',
    call: (c) => c.apiKeys.activate('p1', 'k1'),
    method: 'POST',
    path: '/api/v1/projects/p1/api-keys/k1/activate',
    send: { developer: true },
    reply: { status: 200, body: { ...listed, project_id: 'p1' } },
  },
  {
    name: 'apiKeys.roll',
    call: (c) => c.apiKeys.roll('p1', 'k1'),
    method: 'POST',
    path: '/api/v1/projects/p1/api-keys/k1/roll',
    send: { developer: true },
    body: {},
    reply: { status: 201, body: { ...listed, key: generateKey(), project_id: 'p1', previous_key } },
  },
  {
    name: 'accessTokens.create',
    call: (c) => c.accessTokens.create('p1'),
    method: 'POST',
    path: '/api/v1/projects/p1/access-tokens',
    send: { project: true },
    reply: { status: 201, body: { access_token: accessToken, token_type: 'bearer', expires_in: 900 } },
  },
  {
    name: 'generations.create',
    call: (c) => c.generations.create({ prompt: 'a cat' }, { accessToken }),
    method: 'POST',
    path: '/api/v1/generation/generations-v2',
    send: { bearer: true },
    body: { prompt: 'a cat' },
    reply: {
      status: 201,
      body: { id: crypto.randomUUID(), project_id: 'p1', created_at: listed.created_at },
    },
  },
  {
    name: 'generations.delete',
    call: (c) => c.generations.delete('0b0f3c36-9a43-4c47-a1a4-5dfb6d0c1e11', { accessToken }),
    method: 'DELETE',
    path: '/api/v1/generation/generations-v2/0b0f3c36-9a43-4c47-a1a4-5dfb6d0c1e11',
    send: { bearer: true },
    reply: { status: 200, body: { id: '0b0f3c36-9a43-4c47-a1a4-5dfb6d0c1e11', deleted: true } },
  },
  {
    name: 'keys.verify',
    call: (c) => c.keys.verify({ key: projectKey, project_id: 'p1', ip: '203.0.113.7' }),
    method: 'POST',
    path: '/api/v1/keys/verify',
    send: { developer: true },
    body: { key: projectKey, project_id: 'p1', ip: '203.0.113.7' },
    reply: { status: 200, body: verdict },
  },
  {
    name: 'usage.developer',
    call: (c) => c.usage.developer(),
    method: 'GET',
    path: '/api/v1/auth/usage',
    send: { developer: true },
    reply: { status: 200, body: usage },
  },
  {
    name: 'usage.project',
    call: (c) =>
      c.usage.project('p1', {
        from: new Date('2026-01-01T00:00:00Z'),
        to: '2026-01-02T00:00:00+01:00',
        granularity: 'minute',
        keyId: '0b0f3c36-9a43-4c47-a1a4-5dfb6d0c1e11',
      }),
    method: 'GET',
    path: '/api/v1/projects/p1/usage?from=2026-01-01T00%3A00%3A00.000Z&to=2026-01-02T00%3A00%3A00%2B01%3A00&granularity=minute&key_id=0b0f3c36-9a43-4c47-a1a4-5dfb6d0c1e11',
    send: { developer: true },
    reply: { status: 200, body: usage },
  },
  {
    name: 'identities.create',
    call: (c) =>
      c.identities.create('p1', {
        external_id: 'customer_acme',
        ratelimits: [{ name: 'requests', limit: 10, duration: 1000 }],
      }),
    method: 'POST',
    path: '/api/v1/projects/p1/identities',
    send: { developer: true },
    body: { external_id: 'customer_acme', ratelimits: [{ name: 'requests', limit: 10, duration: 1000 }] },
    reply: { status: 201, body: identity },
  },
  {
    name: 'identities.list',
    call: (c) => c.identities.list('p1', { limit: 20, cursor: 'c1', q: 'acme & co' }),
    method: 'GET',
    path: '/api/v1/projects/p1/identities?limit=20&cursor=c1&q=acme%20%26%20co',
    send: { developer: true },
    reply: { status: 200, body: { identities: [identity], next_cursor: null } },
  },
  {
    name: 'identities.get',
    call: (c) => c.identities.get('p1', 'i1'),
    method: 'GET',
    path: '/api/v1/projects/p1/identities/i1',
    send: { developer: true },
    reply: { status: 200, body: identity },
  },
  {
    name: 'identities.update',
    call: (c) => c.identities.update('p1', 'i1', { metadata: null }),
    method: 'PATCH',
    path: '/api/v1/projects/p1/identities/i1',
    send: { developer: true },
    body: { metadata: null },
    reply: { status: 200, body: { ...identity, metadata: null } },
  },
  {
    name: 'identities.delete',
    call: (c) => c.identities.delete('p1', 'i1'),
    method: 'DELETE',
    path: '/api/v1/projects/p1/identities/i1',
    send: { developer: true },
    reply: { status: 200, body: { id: 'i1', deleted: true, revoked_keys: [] } },
  },
  {
    name: 'identities.delete with revokeKeys',
    call: (c) => c.identities.delete('p1', 'i1', { revokeKeys: true }),
    method: 'DELETE',
    path: '/api/v1/projects/p1/identities/i1?revoke_keys=true',
    send: { developer: true },
    reply: { status: 200, body: { id: 'i1', deleted: true, revoked_keys: ['k1'] } },
  },
  {
    name: 'identities.keys',
    call: (c) => c.identities.keys('p1', 'i1', { limit: 5 }),
    method: 'GET',
    path: '/api/v1/projects/p1/identities/i1/keys?limit=5',
    send: { developer: true },
    reply: {
      status: 200,
      body: { keys: [{ ...listed, project_id: 'p1', identity_id: 'i1' }], next_cursor: null },
    },
  },
  {
    name: 'identities.usage',
    call: (c) => c.identities.usage('p1', 'i1', { granularity: 'day' }),
    method: 'GET',
    path: '/api/v1/projects/p1/identities/i1/usage?granularity=day',
    send: { developer: true },
    reply: { status: 200, body: usage },
  },
  {
    name: 'roles.create',
    call: (c) => c.roles.create('p1', { name: 'billing', permissions: ['billing:read', 'billing:*'] }),
    method: 'POST',
    path: '/api/v1/projects/p1/roles',
    send: { developer: true },
    body: { name: 'billing', permissions: ['billing:read', 'billing:*'] },
    reply: { status: 201, body: role },
  },
  {
    name: 'roles.list',
    call: (c) => c.roles.list('p1', { limit: 20, cursor: 'c1' }),
    method: 'GET',
    path: '/api/v1/projects/p1/roles?limit=20&cursor=c1',
    send: { developer: true },
    reply: { status: 200, body: { roles: [role], next_cursor: null } },
  },
  {
    name: 'roles.get',
    call: (c) => c.roles.get('p1', 'r1'),
    method: 'GET',
    path: '/api/v1/projects/p1/roles/r1',
    send: { developer: true },
    reply: { status: 200, body: role },
  },
  {
    name: 'roles.update',
    call: (c) => c.roles.update('p1', 'r1', { permissions: [] }),
    method: 'PATCH',
    path: '/api/v1/projects/p1/roles/r1',
    send: { developer: true },
    body: { permissions: [] },
    reply: { status: 200, body: { ...role, permissions: [] } },
  },
  {
    name: 'roles.delete',
    call: (c) => c.roles.delete('p1', 'r1'),
    method: 'DELETE',
    path: '/api/v1/projects/p1/roles/r1',
    send: { developer: true },
    reply: { status: 200, body: { id: 'r1', deleted: true, detached_keys: [], detached_identities: [] } },
  },
  {
    name: 'roles.delete with detach',
    call: (c) => c.roles.delete('p1', 'r1', { detach: true }),
    method: 'DELETE',
    path: '/api/v1/projects/p1/roles/r1?detach=true',
    send: { developer: true },
    reply: { status: 200, body: { id: 'r1', deleted: true, detached_keys: ['k1'], detached_identities: [] } },
  },
  {
    name: 'health',
    call: (c) => c.health(),
    method: 'GET',
    path: '/healthz',
    send: {},
    reply: { status: 200, body: { status: 'ok' } },
  },
]

describe('createClient: identities', () => {
  it('findByExternalId sends the id in the query, encoded, and answers the identity or null', async () => {
    const server = await fakeServer((request) => ({
      status: 200,
      body: { identities: request.path.endsWith('acme%2F1') ? [identity] : [], next_cursor: null },
    }))
    const client = createClient({ baseUrl: server.baseUrl, developerKey })
    await expect(client.identities.findByExternalId('p1', 'acme/1')).resolves.toEqual(identity)
    await expect(client.identities.findByExternalId('p1', 'nobody')).resolves.toBeNull()
    expect(server.seen.map((request) => request.path)).toEqual([
      '/api/v1/projects/p1/identities?external_id=acme%2F1',
      '/api/v1/projects/p1/identities?external_id=nobody',
    ])
    await expect(client.identities.findByExternalId('p1', '')).rejects.toThrow(
      'externalId must be a non-empty string.',
    )
  })

  it('listAll walks every page', async () => {
    const second = { ...identity, id: 'i2' }
    const server = await fakeServer((request) => ({
      status: 200,
      body: request.path.includes('cursor=')
        ? { identities: [second], next_cursor: null }
        : { identities: [identity], next_cursor: 'c2' },
    }))
    const client = createClient({ baseUrl: server.baseUrl, developerKey })
    const all = []
    for await (const item of client.identities.listAll('p1')) all.push(item.id)
    expect(all).toEqual(['i1', 'i2'])
    expect(server.seen.map((request) => request.path)).toEqual([
      '/api/v1/projects/p1/identities?limit=200',
      '/api/v1/projects/p1/identities?limit=200&cursor=c2',
    ])
  })
})

describe('createClient: keys.verify', () => {
  it('sends a service token instead of the developer key when the call gives one', async () => {
    const server = await fakeServer(() => ({ status: 200, body: verdict }))
    const client = createClient({ baseUrl: server.baseUrl, developerKey })
    await expect(client.keys.verify({ key: projectKey }, { serviceToken: 'svc.token-1' })).resolves.toEqual(
      verdict,
    )
    expect(server.seen[0]!.headers.authorization).toBe('Bearer svc.token-1')
    expect(server.seen[0]!.headers['x-developer-key']).toBeUndefined()
    await expect(client.keys.verify({ key: projectKey }, { serviceToken: '' })).rejects.toThrow(
      'options.serviceToken must be a non-empty string',
    )
    const anonymous = createClient({ baseUrl: server.baseUrl })
    await expect(anonymous.keys.verify({ key: projectKey })).rejects.toThrow(ClientConfigError)
    expect(server.seen).toHaveLength(1)
  })
})

describe('createClient: every endpoint', () => {
  it.each(endpoints)('$name sends $method $path with its credentials', async (endpoint) => {
    const server = await fakeServer(() => endpoint.reply)
    const client = createClient({ baseUrl: server.baseUrl, developerKey, projectKey })
    await expect(endpoint.call(client)).resolves.toEqual(endpoint.reply.body)
    expect(server.seen).toHaveLength(1)
    const [request] = server.seen
    expect(request!.method).toBe(endpoint.method)
    expect(request!.path).toBe(endpoint.path)
    expect(request!.headers['x-developer-key']).toBe(endpoint.send.developer ? developerKey : undefined)
    expect(request!.headers['x-api-key']).toBe(endpoint.send.project ? projectKey : undefined)
    expect(request!.headers.authorization).toBe(endpoint.send.bearer ? `Bearer ${accessToken}` : undefined)
    expect(request!.headers.accept).toBe('application/json')
    if (endpoint.body === undefined) {
      expect(request!.body).toBe('')
      expect(request!.headers['content-type']).toBeUndefined()
    } else {
      expect(JSON.parse(request!.body)).toEqual(endpoint.body)
      expect(request!.headers['content-type']).toBe('application/json')
    }
  })

  it('joins paths to a base URL with a path, and encodes path parameters', async () => {
    const server = await fakeServer(() => ({ status: 200, body: { keys: [] } }))
    const client = createClient({ baseUrl: `${server.baseUrl}/keyward/`, developerKey })
    await client.apiKeys.list('team/a b?')
    expect(server.seen[0]!.path).toBe('/keyward/api/v1/projects/team%2Fa%20b%3F/api-keys')
  })

  it('refuses an empty path parameter before sending', async () => {
    const server = await fakeServer(() => ({ status: 200, body: {} }))
    const client = createClient({ baseUrl: server.baseUrl, developerKey })
    await expect(client.developerKeys.deactivate('')).rejects.toThrow('keyId must be a non-empty string.')
    expect(server.seen).toHaveLength(0)
  })
})

describe('createClient: pages', () => {
  it('listAll walks every page, asking for the next one with the cursor it was given', async () => {
    const pages = new Map<string, { keys: object[]; next_cursor: string | null }>([
      ['', { keys: [{ id: 'k3' }, { id: 'k2' }], next_cursor: 'c/2' }],
      ['c/2', { keys: [{ id: 'k1' }], next_cursor: null }],
    ])
    const server = await fakeServer((request) => {
      const cursor = new URL(request.path, 'http://x').searchParams.get('cursor') ?? ''
      return { status: 200, body: pages.get(cursor) }
    })
    const client = createClient({ baseUrl: server.baseUrl, developerKey })
    const ids: string[] = []
    for await (const key of client.apiKeys.listAll('p1', { limit: 2 })) ids.push(key.id)
    expect(ids).toEqual(['k3', 'k2', 'k1'])
    expect(server.seen.map((r) => r.path)).toEqual([
      '/api/v1/projects/p1/api-keys?limit=2',
      '/api/v1/projects/p1/api-keys?limit=2&cursor=c%2F2',
    ])
    for await (const _ of client.developerKeys.listAll()) break
    expect(server.seen.at(-1)?.path).toBe('/api/v1/auth/developer-keys?limit=200')
  })
})

describe('createClient: session mode (a browser signed in to the console)', () => {
  it('sends no developer key, asks fetch for same-origin credentials, and still sends a project key', async () => {
    const calls: { url: string; init: RequestInit }[] = []
    const fetch = async (url: string, init: RequestInit) => {
      calls.push({ url, init })
      return new Response('{"projects":[],"next_cursor":null}', { status: 200 })
    }
    const client = createClient({ baseUrl: 'https://console.example.com', session: true, fetch })
    await client.projects.list()
    await client.developerKeys.create({ name: 'from the console' })
    await client.withProjectKey(projectKey).projects.delete('p1')
    for (const { init } of calls) {
      expect(init.credentials).toBe('same-origin')
      expect(init.headers).not.toHaveProperty('x-developer-key')
    }
    expect(calls[2]!.init.headers).toMatchObject({ 'x-api-key': projectKey })
    await expect(client.accessTokens.create('p1')).rejects.toBeInstanceOf(ClientConfigError)
    const keyed = createClient({ baseUrl: 'https://console.example.com', developerKey, fetch })
    await keyed.projects.list()
    expect(calls.at(-1)!.init).not.toHaveProperty('credentials')
  })

  it('refuses session with a developer key, or a session that is not a boolean', () => {
    expect(() => createClient({ baseUrl: 'https://x.example', session: true, developerKey })).toThrow(
      'give `session` or `developerKey`, not both',
    )
    expect(() => createClient({ baseUrl: 'https://x.example', session: 'yes' as never })).toThrow(
      'option `session` must be a boolean',
    )
  })
})

describe('createClient: errors', () => {
  it('turns an error body into a KeywardApiError with status, type and the detail array', async () => {
    const detail = [
      {
        loc: ['header', 'x-developer-key'],
        msg: 'The developer key is not valid: it is unknown or no longer active.',
        type: 'key_invalid',
      },
    ]
    const server = await fakeServer(() => ({ status: 401, body: { detail } }))
    const client = createClient({ baseUrl: server.baseUrl, developerKey })
    const error = await rejection(client.developerKeys.list())
    expect(error).toBeInstanceOf(KeywardApiError)
    const api = error as KeywardApiError
    expect([api.status, api.type, api.method, api.path]).toEqual([
      401,
      'key_invalid',
      'GET',
      '/api/v1/auth/developer-keys',
    ])
    expect(api.detail).toEqual(detail)
    expect(api.message).toBe(`GET /api/v1/auth/developer-keys failed with 401 key_invalid: ${detail[0]!.msg}`)
    expect(`${api.message}${JSON.stringify(api)}${api.stack}`).not.toContain(developerKey.slice(8))
  })

  it('keeps every detail of a validation failure; type is the first one', async () => {
    const detail = [
      {
        loc: ['body', 'name'],
        msg: 'String should have at most 100 characters, got 101.',
        type: 'string_too_long',
      },
      { loc: ['body'], msg: 'Another problem.', type: 'missing' },
    ]
    const server = await fakeServer(() => ({ status: 422, body: { detail } }))
    const client = createClient({ baseUrl: server.baseUrl, developerKey })
    const error = (await rejection(client.projects.create({ name: 'x'.repeat(101) }))) as KeywardApiError
    expect([error.status, error.type]).toEqual([422, 'string_too_long'])
    expect(error.detail).toEqual(detail)
  })

  it('reads the error body that the core renders', async () => {
    const server = await fakeServer(() => ({
      status: 409,
      body: errorBody(
        new KeywardError(ErrorType.limitExceeded, 'This developer already has 10 active keys.', []),
      ),
    }))
    const client = createClient({ baseUrl: server.baseUrl, developerKey })
    const error = (await rejection(client.developerKeys.create())) as KeywardApiError
    expect([error.status, error.type, error.detail[0]!.msg]).toEqual([
      409,
      'limit_exceeded',
      'This developer already has 10 active keys.',
    ])
  })

  it('gives type null and an empty detail for an answer that is not a Keyward error body', async () => {
    const server = await fakeServer(() => ({
      status: 502,
      raw: '<html>Bad Gateway</html>',
      headers: { 'content-type': 'text/html' },
    }))
    const client = createClient({ baseUrl: server.baseUrl })
    const error = (await rejection(client.health())) as KeywardApiError
    expect(error).toBeInstanceOf(KeywardApiError)
    expect([error.status, error.type, error.detail]).toEqual([502, null, []])
    expect(error.message).toBe('GET /healthz failed with 502 Bad Gateway.')
  })

  it('drops malformed detail elements instead of trusting them', async () => {
    const server = await fakeServer(() => ({
      status: 400,
      body: {
        detail: [
          { loc: 'header', msg: 1, type: 'x' },
          { loc: [], msg: 'ok', type: 'missing' },
        ],
      },
    }))
    const client = createClient({ baseUrl: server.baseUrl })
    const error = (await rejection(client.health())) as KeywardApiError
    expect(error.detail).toEqual([{ loc: [], msg: 'ok', type: 'missing' }])
    expect(error.type).toBe('missing')
  })

  it('keeps a type it does not know in detail, and `type` null', async () => {
    const detail = [{ loc: [], msg: 'new', type: 'quota_spent' }]
    const server = await fakeServer(() => ({ status: 402, body: { detail } }))
    const error = (await rejection(createClient({ baseUrl: server.baseUrl }).health())) as KeywardApiError
    expect([error.type, error.detail]).toEqual([null, detail])
  })

  it('reports a success answer whose body is not JSON', async () => {
    const server = await fakeServer(() => ({ status: 200, raw: 'ok' }))
    const client = createClient({ baseUrl: server.baseUrl })
    const error = (await rejection(client.health())) as KeywardApiError
    expect([error.status, error.type, error.message]).toEqual([
      200,
      null,
      'GET /healthz answered 200 with a body that is not JSON.',
    ])
  })

  it('never follows a redirect, so keys are not sent elsewhere', async () => {
    const elsewhere = await fakeServer(() => ({ status: 200, body: { keys: [] } }))
    const server = await fakeServer(() => ({
      status: 307,
      raw: '',
      headers: { location: `${elsewhere.baseUrl}/api/v1/auth/developer-keys` },
    }))
    const client = createClient({ baseUrl: server.baseUrl, developerKey })
    const error = (await rejection(client.developerKeys.list())) as KeywardApiError
    expect(error).toBeInstanceOf(KeywardApiError)
    expect([error.status, error.type]).toEqual([307, null])
    expect(error.message).toContain('does not follow redirects')
    expect(elsewhere.seen).toHaveLength(0)
  })

  it('reports an unreachable server as a KeywardNetworkError', async () => {
    const server = await fakeServer(() => ({ status: 200, body: {} }))
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))))
    const client = createClient({ baseUrl: server.baseUrl })
    const error = (await rejection(client.health())) as KeywardNetworkError
    expect(error).toBeInstanceOf(KeywardNetworkError)
    expect([error.reason, error.method, error.path]).toEqual(['unreachable', 'GET', '/healthz'])
    expect(error.baseUrl).toBe(server.baseUrl)
    expect(error.message).toBe(`GET /healthz could not reach the server at ${server.baseUrl}.`)
    expect(error.cause).toBeInstanceOf(Error)
  })

  it('times out a server that does not answer', async () => {
    const server = await fakeServer(() => null)
    const client = createClient({ baseUrl: server.baseUrl, timeoutMs: 100 })
    const error = (await rejection(client.health())) as KeywardNetworkError
    expect(error).toBeInstanceOf(KeywardNetworkError)
    expect(error.reason).toBe('timeout')
    expect(error.message).toBe(`GET /healthz got no answer from ${server.baseUrl} within 100 ms.`)
  })

  it("rejects with the caller's abort reason when the caller aborts", async () => {
    const server = await fakeServer(() => null)
    const client = createClient({ baseUrl: server.baseUrl })
    const controller = new AbortController()
    const pending = rejection(client.health({ signal: controller.signal }))
    const reason = new Error('user cancelled')
    setTimeout(() => controller.abort(reason), 20)
    expect(await pending).toBe(reason)
  })
})

describe('createClient: keys', () => {
  it('refuses a call whose key is missing, naming the option, before sending anything', async () => {
    const server = await fakeServer(() => ({ status: 200, body: {} }))
    const client = createClient({ baseUrl: server.baseUrl, developerKey })
    const error = (await rejection(client.projects.delete('p1'))) as ClientConfigError
    expect(error).toBeInstanceOf(ClientConfigError)
    expect([error.variable, error.problem]).toEqual(['projectKey', 'missing'])
    expect(error.message).toBe("projectKey is not set. projects.delete needs the project's API key.")
    const noDeveloper = createClient({ baseUrl: server.baseUrl, projectKey })
    const second = (await rejection(noDeveloper.projects.create({ name: 'shop' }))) as ClientConfigError
    expect([second.variable, second.message]).toEqual([
      'developerKey',
      'developerKey is not set. projects.create needs a developer key.',
    ])
    expect(server.seen).toHaveLength(0)
  })

  it('refuses a call to the generation endpoints without an access token', async () => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:9' })
    await expect(client.generations.delete('g1', { accessToken: '' })).rejects.toThrow(
      'options.accessToken must be a non-empty string',
    )
  })

  it('checks the options once, when the client is built, naming the option', () => {
    const error = (() => {
      try {
        createClient({ baseUrl: 'http://127.0.0.1:3000', developerKey: developerKey.slice(0, 34) })
      } catch (e) {
        return e as ClientConfigError
      }
    })()
    expect(error).toBeInstanceOf(ClientConfigError)
    expect(error!.variable).toBe('developerKey')
    expect(error!.message).toBe('developerKey is malformed: Expected 35 characters, got 34.')
    expect(() => createClient({ baseUrl: 'keys.example.com' })).toThrow('baseUrl is not a valid URL')
    expect(() => createClient({ baseUrl: 'localhost:3000' })).toThrow(
      'baseUrl must be an http:// or https:// URL.',
    )
    expect(() => createClient({ baseUrl: 'http://127.0.0.1:3000', timeoutMs: 0 })).toThrow(
      'createClient: option `timeoutMs` must be a positive number, got 0.',
    )
  })

  it('does not show its keys when printed', () => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:3000', developerKey, projectKey })
    const printed = `${inspect(client, { depth: 5 })}${JSON.stringify(client)}`
    expect(printed).not.toContain(developerKey)
    expect(printed).not.toContain(projectKey)
  })

  it('withProjectKey sends another project key and keeps the developer key', async () => {
    const server = await fakeServer(() => ({ status: 200, body: { id: 'p2', deleted: true } }))
    const other = generateKey()
    const client = createClient({ baseUrl: server.baseUrl, developerKey, projectKey }).withProjectKey(other)
    await client.projects.delete('p2')
    expect(server.seen[0]!.headers['x-api-key']).toBe(other)
    expect(server.seen[0]!.headers['x-developer-key']).toBe(developerKey)
    expect(() => client.withProjectKey('ak_nope-nope-nope')).toThrow('projectKey is malformed')
  })

  it('uses an injected fetch', async () => {
    const calls: { url: string; init: RequestInit }[] = []
    const client = createClient({
      baseUrl: 'https://keys.example.com',
      developerKey,
      fetch: async (url, init) => {
        calls.push({ url, init })
        return new Response(JSON.stringify({ keys: [] }), { status: 200 })
      },
    })
    await expect(client.developerKeys.list()).resolves.toEqual({ keys: [] })
    expect(calls).toHaveLength(1)
    expect(calls[0]!.url).toBe('https://keys.example.com/api/v1/auth/developer-keys')
    expect(calls[0]!.init.method).toBe('GET')
    expect(calls[0]!.init.redirect).toBe('manual')
    expect((calls[0]!.init.headers as Record<string, string>)['x-developer-key']).toBe(developerKey)
  })

  it('reports a failing injected fetch as a network failure', async () => {
    const client = createClient({
      baseUrl: 'https://keys.example.com',
      fetch: async () => {
        throw new TypeError('fetch failed')
      },
    })
    const error = (await rejection(client.health())) as KeywardNetworkError
    expect(error).toBeInstanceOf(KeywardNetworkError)
    expect(error.reason).toBe('unreachable')
    expect((error.cause as Error).message).toBe('fetch failed')
  })
})

describe('createClient against a server that authenticates with the core', () => {
  it('sends the developer key the core verifies, and reads the core errors after revocation', async () => {
    const keyward = createKeyward({ store: new MemoryKeyStore() })
    const issued = await keyward.issueDeveloperKey('dev_1', { name: 'laptop' })
    const wire = (r: KeyRecord) => keyToJson(r, keyward.isRotationDue(r))
    const server = await fakeServer(async (request) => {
      try {
        const key = request.headers['x-developer-key'] as string | undefined
        const auth = await keyward.authenticate({ developerKey: key }, { scope: 'developer' })
        if (request.method === 'GET') {
          return {
            status: 200,
            body: { keys: (await keyward.listKeys({ type: 'developer', id: auth.developerId })).map(wire) },
          }
        }
        const id = decodeURIComponent(request.path.split('/').pop()!)
        return { status: 200, body: wire((await keyward.deactivateKey(id))!) }
      } catch (error) {
        const err = error as KeywardError
        return { status: err.status, body: errorBody(err) }
      }
    })
    const client = createClient({ baseUrl: server.baseUrl, developerKey: issued.key })
    const { keys } = await client.developerKeys.list()
    expect(keys).toEqual([wire(issued.record)])
    expect(await client.developerKeys.deactivate(issued.record.id)).toMatchObject({
      id: issued.record.id,
      active: false,
    })
    const error = (await rejection(client.developerKeys.list())) as KeywardApiError
    expect([error.status, error.type, error.detail[0]!.loc]).toEqual([
      401,
      'key_invalid',
      ['header', 'x-developer-key'],
    ])
  })
})

describe('createClient: the audit log', () => {
  it("lists the developer's audit rows that the core's route answers, page after page, of one project", async () => {
    const keyward = createKeyward({
      store: new MemoryKeyStore(),
      projectOwner: (id) => (id === 'p/1' ? 'dev_1' : null),
    })
    const issued = await keyward.issueDeveloperKey('dev_1')
    for (let i = 0; i < 3; i++) await keyward.issueProjectKey('p/1')
    const route = createKeyRoutes(keyward).find((r) => r.path === '/api/v1/audit')!
    const server = await fakeServer(async (request) => {
      const answer = await route.handle({
        method: request.method,
        url: request.path,
        params: {},
        header: (name) => request.headers[name] as string | undefined,
      })
      return { status: answer.status, raw: answer.body }
    })
    const client = createClient({ baseUrl: server.baseUrl, developerKey: issued.key })
    const rows = []
    for await (const row of client.audit.listAll({ limit: 2 })) rows.push(row)
    expect(rows.map((row) => [row.action, row.target.type])).toEqual([
      ['key.issued', 'key'],
      ['key.issued', 'key'],
      ['key.issued', 'key'],
      ['key.issued', 'key'],
    ])
    const page = await client.audit.list({ projectId: 'p/1', limit: 5 })
    expect(page.entries).toHaveLength(3)
    expect(server.seen.at(-1)?.path).toBe('/api/v1/audit?limit=5&project_id=p%2F1')
    const error = (await rejection(client.audit.list({ limit: 0 }))) as KeywardApiError
    expect([error.status, error.type, error.detail[0]!.loc]).toEqual([
      422,
      'greater_than_equal',
      ['query', 'limit'],
    ])
  })
})

describe('createClient: roles, against the core routes', () => {
  it('creates roles, gives them to keys by name, and reads the core errors of a role in use', async () => {
    const keyward = createKeyward({
      store: new MemoryKeyStore(),
      projectOwner: (id) => (id === 'p1' ? 'dev_1' : null),
      permissions: ['billing:read', 'billing:write', 'reports:read'],
    })
    const issued = await keyward.issueDeveloperKey('dev_1')
    const routes = createKeyRoutes(keyward)
    const server = await fakeServer(async (request) => {
      const [path] = request.path.split('?') as [string]
      let params: Record<string, string> = {}
      const route = routes.find((r) => {
        const names = [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]!)
        const match = new RegExp(`^${r.path.replace(/:(\w+)/g, '([^/]+)')}$`).exec(path)
        if (r.method !== request.method || !match) return false
        params = Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]))
        return true
      })!
      const answer = await route.handle({
        method: request.method,
        url: request.path,
        params,
        header: (name) => request.headers[name] as string | undefined,
        ...(request.body ? { body: () => ({ parsed: JSON.parse(request.body) }) } : {}),
      })
      return { status: answer.status, raw: answer.body }
    })
    const client = createClient({ baseUrl: server.baseUrl, developerKey: issued.key })
    const billing = await client.roles.create('p1', { name: 'billing', permissions: ['billing:*'] })
    expect(billing).toMatchObject({ project_id: 'p1', name: 'billing', permissions: ['billing:*'] })
    const key = await client.apiKeys.create('p1', { name: 'invoices', roles: ['billing'] })
    expect(key.roles).toEqual(['billing'])
    const all = []
    for await (const item of client.roles.listAll('p1')) all.push(item.name)
    expect(all).toEqual(['billing'])
    const unknown = (await rejection(
      client.apiKeys.update('p1', key.id, { roles: ['auditor'] }),
    )) as KeywardApiError
    expect([unknown.status, unknown.type, unknown.detail[0]!.msg]).toEqual([
      422,
      'role_unknown',
      'The project has no role named "auditor".',
    ])
    const inUse = (await rejection(client.roles.delete('p1', billing.id))) as KeywardApiError
    expect([inUse.status, inUse.type]).toEqual([409, 'role_in_use'])
    expect(await client.roles.delete('p1', billing.id, { detach: true })).toEqual({
      id: billing.id,
      deleted: true,
      detached_keys: [key.id],
      detached_identities: [],
    })
    expect((await client.apiKeys.get('p1', key.id)).roles).toBeNull()
  })
})
