// The secret-scanning endpoint through each adapter's route helpers, over real HTTP: an Express,
// a Fastify and a Hono server, each with its own service, answer the same signed alerts alike.
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import {
  createKeyward,
  type Keyward,
  type KeywardEvent,
  MemoryKeyStore,
  type SecretScanningOptions,
} from '@keyward/core'
import * as kwExpress from '@keyward/express'
import * as kwFastify from '@keyward/fastify'
import * as kwHono from '@keyward/hono'
import express from 'express'
import Fastify from 'fastify'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RawResponse, sendRaw } from '../http/raw-client.js'
import { type SecretScanningSender, startSecretScanningSender } from './sender.js'

const PATH = '/api/v1/secret-scanning/github'

interface Running {
  readonly origin: string
  close(): Promise<void>
}

const closer = (server: import('node:http').Server) => () =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

type Listen = (keyward: Keyward, secretScanning: SecretScanningOptions) => Promise<Running>

const adapters: Record<string, Listen> = {
  express: (keyward, secretScanning) => {
    const app = express()
    app.use(kwExpress.keywardRouter(keyward, { secretScanning }))
    app.get('/projects/:project_id/whoami', kwExpress.requireProject(keyward), (req, res) =>
      res.json(req.keyward),
    )
    return new Promise((resolve) => {
      const http = app.listen(0, '127.0.0.1', () => {
        resolve({ origin: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, close: closer(http) })
      })
    })
  },
  fastify: async (keyward, secretScanning) => {
    const app = Fastify()
    await app.register(kwFastify.keywardPlugin, { keyward, secretScanning })
    app.get(
      '/projects/:project_id/whoami',
      { onRequest: kwFastify.requireProject(keyward) },
      async (request) => request.keyward,
    )
    const origin = await app.listen({ port: 0, host: '127.0.0.1' })
    return { origin, close: () => app.close() }
  },
  hono: (keyward, secretScanning) => {
    const app = new Hono()
    app.route('/', kwHono.keywardRoutes(keyward, { secretScanning }))
    app.get('/projects/:project_id/whoami', kwHono.requireProject(keyward), (c) => c.json(c.get('keyward')))
    return new Promise((resolve) => {
      const http = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
        resolve({
          origin: `http://127.0.0.1:${info.port}`,
          close: closer(http as import('node:http').Server),
        })
      })
    })
  },
}

interface Target {
  readonly name: string
  readonly keyward: Keyward
  readonly events: KeywardEvent[]
  readonly server: Running
}

let sender: SecretScanningSender
const targets: Target[] = []

beforeAll(async () => {
  sender = await startSecretScanningSender()
  for (const [name, listen] of Object.entries(adapters)) {
    const events: KeywardEvent[] = []
    const keyward = createKeyward({
      store: new MemoryKeyStore(),
      projectOwner: () => null,
      onEvent: (e) => events.push(e),
    })
    const server = await listen(keyward, { keysUrl: sender.keysUrl, bodyLimit: 64 * 1024 })
    targets.push({ name, keyward, events, server })
  }
})

afterAll(async () => {
  for (const target of targets.splice(0)) await target.server.close()
  await sender.close()
})

const alert = (tokens: readonly string[]) =>
  JSON.stringify(
    tokens.map((token) => ({
      token,
      type: 'keyward_api_key',
      url: 'https://example.com/x',
      source: 'commit',
    })),
  )

function post(target: Target, body: string, headers: Array<[string, string]>): Promise<RawResponse> {
  return sendRaw(target.server.origin, {
    method: 'POST',
    path: PATH,
    headers: [['Content-Type', 'application/json'], ...headers],
    body,
  })
}

/** Sends one request per adapter and checks that all answers are the same; returns them. */
async function everywhere(make: (target: Target) => Promise<RawResponse>) {
  const responses = await Promise.all(targets.map(make))
  for (const response of responses.slice(1)) {
    expect({ status: response.status, body: response.body, type: response.headers['content-type'] }).toEqual({
      status: responses[0]!.status,
      body: responses[0]!.body,
      type: responses[0]!.headers['content-type'],
    })
  }
  return responses[0]!
}

const whoami = (target: Target, key: string) =>
  sendRaw(target.server.origin, {
    method: 'GET',
    path: '/projects/p/whoami',
    headers: [['X-API-Key', key]],
  })

describe('secret scanning through each adapter', () => {
  it('a signed alert revokes the key on every adapter; the same alert again changes nothing', async () => {
    const issued = await Promise.all(targets.map((t) => t.keyward.issueProjectKey('p')))
    for (const [i, target] of targets.entries()) {
      expect((await whoami(target, issued[i]!.key)).status, target.name).toBe(200)
      target.events.length = 0
    }
    const leaked = await Promise.all(
      targets.map(async (target, i) => {
        const body = alert([issued[i]!.key, 'ghp_not_ours'])
        return post(target, body, sender.headers(body))
      }),
    )
    for (const [i, target] of targets.entries()) {
      const response = leaked[i]!
      expect(response.status, target.name).toBe(200)
      expect(JSON.parse(response.body)).toEqual([
        { token_hash: issued[i]!.record.hash, token_type: 'keyward_api_key', label: 'true_positive' },
        {
          token_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
          token_type: 'keyward_api_key',
          label: 'false_positive',
        },
      ])
      expect((await whoami(target, issued[i]!.key)).status, target.name).toBe(401)
      expect(target.events.find((e) => e.type === 'key.leaked')).toMatchObject({
        keyPrefix: issued[i]!.record.keyPrefix,
        url: 'https://example.com/x',
        source: 'commit',
        revoked: true,
      })
      const body = alert([issued[i]!.key, 'ghp_not_ours'])
      const again = await post(target, body, sender.headers(body))
      expect(again.body, target.name).toBe(response.body)
      expect(
        target.events.filter((e) => e.type === 'key.deactivated'),
        target.name,
      ).toHaveLength(1)
    }
  })

  it('answers alike: 401 for a bad or missing signature, 400 for a body that is not an alert, 413 past the limit', async () => {
    const body = alert(['ak_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'])
    const other = alert(['ak_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'])
    const forged: Array<[string, string]> = [
      ['GitHub-Public-Key-Identifier', sender.identifier],
      ['GitHub-Public-Key-Signature', sender.sign(other)],
    ]
    expect((await everywhere((t) => post(t, body, forged))).status).toBe(401)
    const missing = await everywhere((t) => post(t, body, [forged[0]!]))
    expect([missing.status, JSON.parse(missing.body).detail[0].type]).toEqual([401, 'signature_missing'])
    const notJson = '[{"token": '
    const bad = await everywhere((t) => post(t, notJson, sender.headers(notJson)))
    expect([bad.status, JSON.parse(bad.body).detail[0].type]).toEqual([400, 'alert_invalid'])
    const big = alert(Array(2000).fill('ak_cccccccccccccccccccccccccccccccc'))
    const tooBig = await everywhere((t) => post(t, big, sender.headers(big)))
    expect([tooBig.status, JSON.parse(tooBig.body).detail[0].type]).toEqual([413, 'payload_too_large'])
  })

  it('on Express behind a JSON body parser, whose bytes are gone, answers 500 and revokes nothing', async () => {
    const keyward = createKeyward({ store: new MemoryKeyStore(), projectOwner: () => null })
    const app = express()
    app.use(express.json())
    app.use(kwExpress.keywardRouter(keyward, { secretScanning: { keysUrl: sender.keysUrl } }))
    const server = await new Promise<import('node:http').Server>((resolve) => {
      const http = app.listen(0, '127.0.0.1', () => resolve(http))
    })
    try {
      const { key, record } = await keyward.issueProjectKey('p')
      const body = alert([key])
      const response = await sendRaw(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, {
        method: 'POST',
        path: PATH,
        headers: [['Content-Type', 'application/json'], ...sender.headers(body)],
        body,
      })
      expect([response.status, JSON.parse(response.body).detail[0].type]).toEqual([500, 'internal_error'])
      expect((await keyward.findKey(record.id))?.active).toBe(true)
    } finally {
      await closer(server)()
    }
  })
})
