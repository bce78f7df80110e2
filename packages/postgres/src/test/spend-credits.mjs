// A process that verifies API keys with credits on PostgreSQL through the built store, for the
// credit tests: it reads commands as JSON lines on stdin and answers each with one JSON line.
// Argument 1 is JSON: { url, schema, key or keys, preparedStatements }.
//   {"op":"spend","count":500,"start":0}  verifies `count` times at once, request i costing
//     1 + ((start + i) % 5), with the key keys[(start + i) % keys.length];
//     answers { acceptedCost, accepted, refused, other }
//   {"op":"clock","at":"2027-01-31T00:00:00.000Z"}  sets the clock the service (and its leases) use
//   {"op":"close"}  gives back the unspent block (keyward.close()), closes the store, exits;
//                   answers the credits it could not give back and the store's errors
// Only `usage_exceeded` may refuse a request: any other refusal is counted in `other`.
import { createInterface } from 'node:readline'
import { apiKeyGuard, createKeyward } from '@keyward/core'
import { createPgKeyStore } from '../../dist/pg.js'

const { url, schema, key, keys = [key], preparedStatements = true } = JSON.parse(process.argv[2])
// Three connections each: eight processes stay well within PostgreSQL's 100 connections while
// other test files run beside them (with eight each, the server refused connections).
const store = await createPgKeyStore(
  { connectionString: url, poolConfig: { max: 3 } },
  { schema, preparedStatements, queryTimeoutMs: 30_000 },
)
let clock = null
// What a stop could not give back, and the store's errors: the test's books must balance with them.
let stranded = 0
const storeErrors = []
const keyward = createKeyward({
  store,
  trackLastUsed: false,
  now: () => (clock ? new Date(clock) : new Date()),
  onEvent: (event) => {
    if (event.type === 'credits.stranded') stranded += event.credits
    if (event.type === 'store.error') storeErrors.push(`${event.operation}: ${String(event.error)}`)
  },
})
const guards = [1, 2, 3, 4, 5].map((cost) => apiKeyGuard(keyward, { cost }))
const requests = keys.map((presented) => ({
  method: 'GET',
  url: '/',
  params: {},
  header: (name) => (name === 'x-api-key' ? presented : undefined),
}))
const answer = (line) => process.stdout.write(`${JSON.stringify(line)}\n`)

for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line)
  if (command.op === 'spend') {
    const outcome = { acceptedCost: 0, accepted: 0, refused: 0, other: [] }
    await Promise.all(
      Array.from({ length: command.count }, async (_, i) => {
        const cost = 1 + ((command.start + i) % 5)
        const result = await guards[cost - 1](requests[(command.start + i) % requests.length])
        if (result.ok) {
          outcome.acceptedCost += cost
          outcome.accepted++
        } else {
          const type = JSON.parse(result.response.body).detail[0].type
          if (type === 'usage_exceeded') outcome.refused++
          else outcome.other.push(type)
        }
      }),
    )
    answer(outcome)
  } else if (command.op === 'clock') {
    clock = command.at
    answer({ at: clock })
  } else if (command.op === 'close') {
    await keyward.close()
    await store.close()
    answer({ closed: true, stranded, storeErrors })
    process.exit(0)
  }
}
