// authenticate() on MemoryKeyStore against a hand-written floor: the least work a correct
// verifier can do (format regex, SHA-256, one Map lookup), in the same process and run.
import { hash } from 'node:crypto'
import {
  API_SCHEMAS,
  checkBody,
  checkName,
  createKeyward,
  generateKey,
  KEY_PATTERN,
  MemoryKeyStore,
} from '@keyward/core'
import { machineLine, measure, pairedCpu, table } from './harness.mjs'

const store = new MemoryKeyStore()
const keyward = createKeyward({ store })
const projectId = 'proj_bench'
const valid = []
for (let i = 0; i < 1000; i++) valid.push((await keyward.issueProjectKey(projectId)).key)
for (let i = 0; i < 10_000; i++) await keyward.issueProjectKey(`proj_${i}`) // a store that is not tiny
const inactive = []
for (let i = 0; i < 1000; i++) {
  const { key, record } = await keyward.issueProjectKey(projectId)
  await keyward.deactivateKey(record.id)
  inactive.push(key)
}
const unknown = Array.from({ length: 1000 }, () => generateKey())
const malformed = unknown.map((k) => k.slice(0, 34))

// The floor: a Map from hash to record, as the memory store keeps it.
const floorMap = new Map()
for (const key of valid) floorMap.set(hash('sha256', key, 'hex'), { ownerId: projectId, active: true })
function floor(key) {
  if (!KEY_PATTERN.test(key)) throw new Error('malformed')
  const record = floorMap.get(hash('sha256', key, 'hex'))
  if (record === undefined) throw new Error('unknown')
  return record
}

const requirement = { scope: 'project', projectId }
const bodies = [{ name: 'ci runner' }, { name: 'laptop', expires_in_days: 30 }, {}]
const swallow = () => {}
const results = await measure(
  [
    { name: 'floor: regex + crypto.hash + Map (valid key)', fn: (i) => floor(valid[i % 1000]) },
    {
      name: 'authenticate, valid key',
      fn: (i) => keyward.authenticate({ projectKey: valid[i % 1000] }, requirement),
      async: true,
    },
    {
      name: 'authenticate, unknown key (key_invalid)',
      fn: (i) => keyward.authenticate({ projectKey: unknown[i % 1000] }, requirement).catch(swallow),
      async: true,
    },
    {
      name: 'authenticate, inactive key (key_invalid)',
      fn: (i) => keyward.authenticate({ projectKey: inactive[i % 1000] }, requirement).catch(swallow),
      async: true,
    },
    {
      name: 'authenticate, malformed key (key_malformed)',
      fn: (i) => keyward.authenticate({ projectKey: malformed[i % 1000] }, requirement).catch(swallow),
      async: true,
    },
    { name: 'generateKey', fn: () => generateKey() },
    // Request bodies of the key routes, checked with the API's schemas (not on the verification path).
    { name: 'checkBody: key creation body', fn: (i) => checkBody(API_SCHEMAS.CreateKeyBody, bodies[i % 3]) },
    { name: 'checkName: the name alone', fn: (i) => checkName(bodies[i % 3].name) },
  ],
  { rounds: Number(process.env.BENCH_ROUNDS ?? 15) },
)

const floorNs = results.get('floor: regex + crypto.hash + Map (valid key)')
const rows = []
for (const [name, ns] of results) {
  if (name === 'generateKey' || name.startsWith('check')) continue
  rows.push([name, ns.toFixed(0), (ns / floorNs).toFixed(2)])
}
table(['case', 'ns/op', 'ratio to floor'], rows)
const gen = results.get('generateKey')
console.log(`\ngenerateKey: ${gen.toFixed(0)} ns/op, ${Math.round(1e9 / gen).toLocaleString('en')} keys/s`)
const body = results.get('checkBody: key creation body')
const name = results.get('checkName: the name alone')
console.log(
  `checkBody (key creation body): ${body.toFixed(0)} ns/op; checkName alone: ${name.toFixed(0)} ns/op`,
)
console.log(
  `Target: every authenticate case within 2x the floor (refusals included: they build no stack trace). ${machineLine()}`,
)

// last_used_at tracking on (the default) against off: two fresh services over the same store,
// fed the same keys and nothing else (a service that also saw refusals would carry other JIT
// feedback), compared by CPU time per verification in alternating pairs of batches.
const tracked = createKeyward({ store })
const untracked = createKeyward({ store, trackLastUsed: false })
const tracking = await pairedCpu(
  (i) => untracked.authenticate({ projectKey: valid[i % 1000] }, requirement),
  (i) => tracked.authenticate({ projectKey: valid[i % 1000] }, requirement),
)
await tracked.flushLastUsed()
console.log(
  '\nlast_used_at tracking, valid key (CPU time of this process, median of 41 alternating pairs):\n',
)
table(
  ['tracking', 'CPU ns/op'],
  [
    ['off', tracking.a.toFixed(0)],
    ['on (default)', tracking.b.toFixed(0)],
  ],
)
console.log(`\non/off: ${tracking.ratio.toFixed(3)} (median of the pairs' ratios; target at most 1.05)`)

// A pepper: an uncached verification of a key stored as HMAC-SHA-256 under the newest of one or
// three peppers (each looked up under all its hashes in one store call) against one stored as plain
// SHA-256, on stores of the same size, CPU time in alternating pairs of batches.
const PEPPERS = [1, 2, 3].map((n) => ({
  id: `p${n}`,
  secret: `bench pepper ${n}, at least thirty-two bytes`,
}))
async function pepperedCase(pepper) {
  const pepperedStore = new MemoryKeyStore()
  const issuer = createKeyward({ store: pepperedStore, ...(pepper ? { hashing: { pepper } } : {}) })
  const keys = []
  for (let i = 0; i < 1000; i++) keys.push((await issuer.issueProjectKey(projectId)).key)
  for (let i = 0; i < 10_000; i++) await issuer.issueProjectKey(`proj_${i}`)
  const service = createKeyward({
    store: pepperedStore,
    trackLastUsed: false,
    ...(pepper ? { hashing: { pepper } } : {}),
  })
  return (i) => service.authenticate({ projectKey: keys[i % 1000] }, requirement)
}
const plainCase = await pepperedCase(undefined)
const onePepper = await pepperCost(plainCase, await pepperedCase(PEPPERS.slice(0, 1)))
const threePeppers = await pepperCost(plainCase, await pepperedCase(PEPPERS))
async function pepperCost(plain, peppered) {
  return pairedCpu(plain, peppered)
}
console.log('\nPepper, uncached valid key (CPU time of this process, median of 41 alternating pairs):\n')
table(
  ['hashing', 'CPU ns/op', 'more than plain, ns'],
  [
    ['plain SHA-256 (default)', onePepper.a.toFixed(0), '0'],
    ['one pepper', onePepper.b.toFixed(0), (onePepper.b - onePepper.a).toFixed(0)],
    [
      'three peppers (key under the newest)',
      threePeppers.b.toFixed(0),
      (threePeppers.b - threePeppers.a).toFixed(0),
    ],
  ],
)
console.log(`\none pepper - plain: ${(onePepper.b - onePepper.a).toFixed(0)} ns (target at most 300)`)

// The floor of that difference: HMAC-SHA-256 is two SHA-256 computations (the inner over the
// padded secret and the message, the outer over the padded secret and the inner digest), and
// through node:crypto each one costs at least a call of crypto.hash, measured here in the same run.
const plainHex = hash('sha256', valid[0], 'hex')
const hmacFloor = await pairedCpu(
  () => plainHex,
  () => hash('sha256', hash('sha256', plainHex, 'latin1'), 'hex'),
)
console.log(
  `floor of any HMAC-SHA-256 here: two crypto.hash calls, ${(hmacFloor.b - hmacFloor.a).toFixed(0)} ns (same run)`,
)
