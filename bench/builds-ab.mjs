// Two builds of @keyward/core in one process, paired: the same cases on each, in batches of
// alternating order, timed by this process's CPU time; the ratio is the median of the pairs'
// ratios, before's time over after's (above 1: the second build is faster).
//
//   node --expose-gc builds-ab.mjs <before>/packages/core/dist/index.js <after>/packages/core/dist/index.js
//
// SWAP=1 imports the second build first (run both ways: where a build sits in the process moves
// its time by a few per cent either way); PAIRS sets the pairs (default 41).
import { pathToFileURL } from 'node:url'
import { machineLine, table } from './harness.mjs'

const [beforePath, afterPath] = process.argv.slice(2)
if (!beforePath || !afterPath) {
  console.error('usage: node --expose-gc builds-ab.mjs <before dist/index.js> <after dist/index.js>')
  process.exit(1)
}
const url = (path) => pathToFileURL(path).href
const swap = process.env.SWAP === '1'
const first = await import(url(swap ? afterPath : beforePath))
const second = await import(url(swap ? beforePath : afterPath))
const [A, B] = swap ? [second, first] : [first, second]
const pairs = Number(process.env.PAIRS ?? 41)

// Both services are built together, a key of one then a key of the other, so that neither's
// objects sit in older parts of the heap than the other's.
async function services(options = {}) {
  const made = [A, B].map((core) => ({
    keyward: core.createKeyward({ store: new core.MemoryKeyStore(), ...options }),
    keys: [],
  }))
  for (let i = 0; i < 1000; i++)
    for (const s of made) s.keys.push((await s.keyward.issueProjectKey('p1')).key)
  for (let i = 0; i < 2000; i++) for (const s of made) await s.keyward.issueProjectKey(`proj_${i}`)
  return made
}

const cpuNs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) * 1000
}
async function batch(fn, n, isAsync) {
  const start = cpuNs()
  if (isAsync) for (let i = 0; i < n; i++) await fn(i)
  else for (let i = 0; i < n; i++) fn(i)
  return (cpuNs() - start) / n
}
const median = (values) => [...values].sort((x, y) => x - y)[values.length >> 1]

async function paired(a, b, isAsync, n) {
  for (let i = 0; i < 5; i++) {
    await batch(a, n, isAsync)
    await batch(b, n, isAsync)
  }
  const as = []
  const bs = []
  const ratios = []
  for (let p = 0; p < pairs; p++) {
    globalThis.gc?.()
    const [x, y] = p % 2 === 0 ? [a, b] : [b, a]
    const tx = await batch(x, n, isAsync)
    const ty = await batch(y, n, isAsync)
    const [ta, tb] = p % 2 === 0 ? [tx, ty] : [ty, tx]
    as.push(ta)
    bs.push(tb)
    ratios.push(ta / tb)
  }
  return [median(as).toFixed(0), median(bs).toFixed(0), median(ratios).toFixed(3)]
}

const requirement = { scope: 'project', projectId: 'p1' }
const authenticating = (a, b) =>
  paired(
    (i) => a.keyward.authenticate({ projectKey: a.keys[i % 1000] }, requirement),
    (i) => b.keyward.authenticate({ projectKey: b.keys[i % 1000] }, requirement),
    true,
    50_000,
  )
const rows = []
{
  const [a, b] = await services({ cache: {} })
  for (const s of [a, b])
    for (const key of s.keys) await s.keyward.authenticate({ projectKey: key }, requirement)
  rows.push([
    'keyNow, cached (the guards\u2019 hot path)',
    ...(await paired(
      (i) => a.keyward.keyNow('project', a.keys[i % 1000], 'p1'),
      (i) => b.keyward.keyNow('project', b.keys[i % 1000], 'p1'),
      false,
      200_000,
    )),
  ])
  rows.push(['authenticate, cached', ...(await authenticating(a, b))])
}
{
  const [a, b] = await services()
  rows.push(['authenticate, no cache', ...(await authenticating(a, b))])
}
table(['case', 'before, CPU ns/op', 'after, CPU ns/op', 'before / after'], rows)
console.log(
  `\nMedians of ${pairs} alternating pairs${swap ? ', the second build imported first' : ''}. ${machineLine()}`,
)
