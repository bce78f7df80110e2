// A 1,000-token secret-scanning alert, end to end: signed, posted over HTTP to the Hono
// route helpers, verified, looked up and revoked in the store. Compared in the same run with
// the floor (the same two statements, raw, on the same database) and with revoking the same
// keys one at a time through the service. PostgreSQL when KEYWARD_PG_URL names a server;
// embedded PGlite always. Every round revokes 1,000 freshly issued keys.
import { createHash, generateKeyPairSync, sign } from 'node:crypto'
import { createServer } from 'node:http'
import { serve } from '@hono/node-server'
import { createKeyward, hashKey } from '@keyward/core'
import { keywardRoutes } from '@keyward/hono'
import { PostgresKeyStore } from '@keyward/postgres'
import { Hono } from 'hono'
import { onEachDatabase } from './databases.mjs'
import { machineLine, table } from './harness.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const TOKENS = 1000
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

// The sender: a P-256 key pair of its own and its keys document on a local port.
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
const identifier = createHash('sha256')
  .update(publicKey.export({ type: 'spki', format: 'der' }))
  .digest('hex')
const document = JSON.stringify({
  public_keys: [
    { key_identifier: identifier, key: publicKey.export({ type: 'spki', format: 'pem' }), is_current: true },
  ],
})
const keysServer = createServer((_req, res) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(document),
)
await new Promise((resolve) => keysServer.listen(0, '127.0.0.1', resolve))
const keysUrl = `http://127.0.0.1:${keysServer.address().port}/keys`

/** A driver that counts the statements it runs: the store's round trips. */
function counted(driver, counter) {
  return {
    query: (...args) => {
      counter.statements++
      return driver.query(...args)
    },
    transaction: (fn) => driver.transaction(fn),
  }
}

async function bench(label, driver, schema, raw) {
  const counter = { statements: 0 }
  const store = new PostgresKeyStore(counted(driver, counter), { schema })
  const keyward = createKeyward({ store })
  const app = new Hono().route('/', keywardRoutes(keyward, { secretScanning: { keysUrl } }))
  const server = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s))
  })
  // Issuing the next round's keys takes longer than Node's 5 s keep-alive: without this, the
  // server may close the client's pooled connection just as the next alert goes out on it.
  server.keepAliveTimeout = 120_000
  const endpoint = `http://127.0.0.1:${server.address().port}/api/v1/secret-scanning/github`
  const issue = async () => {
    const keys = []
    for (let i = 0; i < TOKENS; i++) keys.push((await keyward.issueProjectKey('bench-leaks')).key)
    return keys
  }
  const cases = {
    async keyward(keys) {
      const body = JSON.stringify(
        keys.map((token) => ({ token, type: 'keyward_api_key', url: '', source: 'content' })),
      )
      const started = performance.now()
      counter.statements = 0
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'github-public-key-identifier': identifier,
          'github-public-key-signature': sign('sha256', Buffer.from(body), privateKey).toString('base64'),
        },
        body,
      })
      const feedback = await response.json()
      const ms = performance.now() - started
      if (feedback.filter((f) => f.label === 'true_positive').length !== TOKENS)
        throw new Error('not all revoked')
      return { ms, statements: counter.statements }
    },
    async floor(keys) {
      const hashes = await Promise.all(keys.map(hashKey))
      const started = performance.now()
      const found = await raw(`SELECT id FROM "${schema}".api_keys WHERE hash = ANY($1::text[])`, [hashes])
      const ids = found.map((r) => r.id)
      const changed = await raw(
        `UPDATE "${schema}".api_keys SET active = false WHERE id = ANY($1::uuid[]) AND active RETURNING id`,
        [ids],
      )
      if (changed.length !== TOKENS) throw new Error('not all revoked')
      return { ms: performance.now() - started, statements: 2 }
    },
    async oneByOne(keys) {
      const started = performance.now()
      counter.statements = 0
      for (const key of keys) {
        const record = await store.findKeyByHash(await hashKey(key))
        await keyward.deactivateKey(record.id)
      }
      return { ms: performance.now() - started, statements: counter.statements }
    },
  }
  const results = { keyward: [], floor: [], oneByOne: [] }
  await cases.keyward(await issue()) // warm-up: the keys document, prepared statements, JIT
  for (let round = 0; round < ROUNDS; round++) {
    const order = ['keyward', 'floor', 'oneByOne']
    for (let i = 0; i < round % 3; i++) order.push(order.shift())
    for (const name of order) results[name].push(await cases[name](await issue()))
  }
  servers.push(server)
  const summary = (list) => ({
    ms: median(list.map((r) => r.ms)),
    statements: median(list.map((r) => r.statements)),
  })
  const k = summary(results.keyward)
  const f = summary(results.floor)
  const o = summary(results.oneByOne)
  rows.push([
    label,
    k.ms.toFixed(1),
    k.statements,
    f.ms.toFixed(1),
    `${(k.ms / f.ms).toFixed(2)}x`,
    o.ms.toFixed(0),
    o.statements,
    `${(o.ms / k.ms).toFixed(0)}x`,
  ])
}

const rows = []
const servers = []
try {
  await onEachDatabase('leaks', 10, ({ label, driver, schema, raw }) => bench(label, driver, schema, raw))
} finally {
  for (const server of [...servers, keysServer]) {
    server.closeAllConnections()
    server.close()
  }
}

table(
  [
    'database',
    'Keyward: alert over HTTP (ms)',
    'store statements',
    'floor: the 2 statements, raw (ms)',
    'Keyward / floor',
    'one at a time through the service (ms)',
    'its statements',
    'one at a time / Keyward',
  ],
  rows,
)
console.log(
  `\n${machineLine()} Median of ${ROUNDS} rounds, the three cases in rotating order, each round on ${TOKENS} freshly` +
    ' issued active keys. Keyward: sign, POST over HTTP to the Hono route helpers, verify the signature, parse,' +
    ' hash, one batched lookup, one batched deactivation, feedback read back. Floor: only the two SQL statements' +
    ' on precomputed hashes. One at a time: a lookup and a deactivation per key through the service.' +
    (process.env.KEYWARD_PG_URL ? '' : ' PostgreSQL skipped: set KEYWARD_PG_URL.'),
)
