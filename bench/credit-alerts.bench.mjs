// What the webhook alerts of the hot path cost a verification: the project guard over the
// verification cache on a memory store, an API key with credits (a low-credits threshold) and a
// stored rate limit, at 16 requests in flight, with `webhookAlerts` off and on. The two services
// run in alternating rounds (CREDIT_ALERTS_BENCH_PAIRS, default 15, of CREDIT_ALERTS_BENCH_MS
// each, default 300 ms); the figures are the medians of the rounds' ratios, on over off, of the
// requests per second and of the inverse CPU time per request (which the load of other processes
// on the machine disturbs less). Target: at or above 0.95. The threshold is far below the balance, so no event is written: what is measured
// is the check on each lease's result and the refusal counting beside the rate limit.
import { createKeyward, MemoryKeyStore, projectGuard } from '@keyward/core'
import { machineLine, median, table, throughput } from './harness.mjs'

const PAIRS = Number(process.env.CREDIT_ALERTS_BENCH_PAIRS ?? 15)
const MS = Number(process.env.CREDIT_ALERTS_BENCH_MS ?? 300)
const IN_FLIGHT = 16

async function service(webhookAlerts) {
  const keyward = createKeyward({
    store: new MemoryKeyStore(),
    cache: {},
    projectOwner: async () => 'dev_1',
    webhookAlerts,
  })
  const { key } = await keyward.issueProjectKey('p1', {
    remaining: 1_000_000_000_000,
    creditsLowAt: { remaining: 1000 },
    ratelimits: [{ name: 'requests', limit: 1_000_000_000, duration: 60_000 }],
  })
  const guard = projectGuard(keyward)
  const request = {
    method: 'GET',
    url: '/',
    params: { project_id: 'p1' },
    header: (name) => (name === 'x-api-key' ? key : undefined),
    address: '192.0.2.1',
  }
  const op = () =>
    guard(request).then((result) => {
      if (!result.ok) throw new Error(result.response.body)
    })
  return { keyward, op }
}

const off = await service(false)
const on = await service(true)
await throughput(off.op, IN_FLIGHT, 500)
await throughput(on.op, IN_FLIGHT, 500)
const ratios = []
const cpuRatios = []
const rates = { off: [], on: [] }
for (let pair = 0; pair < PAIRS; pair++) {
  // Alternating which goes first, so that a drift of the machine's load falls on both.
  const order = pair % 2 === 0 ? ['off', 'on'] : ['on', 'off']
  const round = {}
  const cpu = {}
  for (const name of order) {
    const measured = await throughput((name === 'off' ? off : on).op, IN_FLIGHT, MS)
    round[name] = measured.opsPerSecond
    cpu[name] = measured.cpuPerOp
    rates[name].push(round[name])
  }
  ratios.push(round.on / round.off)
  cpuRatios.push(cpu.off / cpu.on)
}
await off.keyward.close()
await on.keyward.close()
table(
  ['webhookAlerts', 'requests/s (median)'],
  [
    ['off', median(rates.off).toFixed(0)],
    ['on', median(rates.on).toFixed(0)],
  ],
)
console.log(
  `\nratio on/off, median of ${PAIRS} paired rounds at ${IN_FLIGHT} in flight: requests/s ${median(ratios).toFixed(3)}, ` +
    `1 / CPU per request ${median(cpuRatios).toFixed(3)}`,
)
console.log(machineLine())
