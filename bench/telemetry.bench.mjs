// What tracing costs a cached verification: the service without `telemetry` against the same
// service given the API's global provider with no SDK registered (every span a no-op), and given
// an SDK that records every span and exports them in batches (to an exporter that drops them).
// Each comparison runs in a process of its own, as an application has one service: code shared
// by services that trace differently would see several shapes and run slower than either alone.
// Paired batches in alternating order, CPU time of the process; the ratio is the traced
// service's time over the untraced one's (median of the pairs' ratios).
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createKeyward, MemoryKeyStore } from '@keyward/core'
import { trace } from '@opentelemetry/api'
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { machineLine, pairedCpu, table } from './harness.mjs'

const PAIRS = 21

async function compare(mode) {
  const store = new MemoryKeyStore()
  const issuer = createKeyward({ store })
  const projectId = 'proj_bench'
  const keys = []
  for (let i = 0; i < 1000; i++) keys.push((await issuer.issueProjectKey(projectId)).key)
  const dropped = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} }
  const sdk = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropped)] })
  const tracerProvider = mode === 'sdk' ? sdk : trace.getTracerProvider()
  const off = createKeyward({ store, cache: {} })
  const traced = createKeyward({ store, cache: {}, telemetry: { tracerProvider } })
  const requirement = { scope: 'project', projectId }
  for (const keyward of [off, traced]) {
    for (const key of keys) await keyward.authenticate({ projectKey: key }, requirement)
  }
  // The guards' synchronous way, 100 calls per awaited step; one literal per service.
  const nowOff = async (i) => {
    for (let j = 0; j < 100; j++) off.keyNow('project', keys[(i + j) % 1000], projectId)
  }
  const nowTraced = async (i) => {
    for (let j = 0; j < 100; j++) traced.keyNow('project', keys[(i + j) % 1000], projectId)
  }
  const now = await pairedCpu(nowOff, nowTraced, { pairs: PAIRS, batch: 200 })
  const verify = await pairedCpu(
    (i) => off.authenticate({ projectKey: keys[i % 1000] }, requirement),
    (i) => traced.authenticate({ projectKey: keys[i % 1000] }, requirement),
    { pairs: PAIRS, batch: 20_000 },
  )
  await sdk.shutdown()
  const per = (result, n) => ({ off: result.a / n, traced: result.b / n, ratio: result.ratio })
  return { now: per(now, 100), verify: per(verify, 1) }
}

const mode = process.argv[2]
if (mode) {
  console.log(JSON.stringify(await compare(mode)))
} else {
  const results = {}
  for (const each of ['noSdk', 'sdk']) {
    const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), each], {
      encoding: 'utf8',
    })
    if (child.status !== 0) throw new Error(child.stderr)
    results[each] = JSON.parse(child.stdout.trim().split('\n').at(-1))
  }
  const cell = (r) => `${r.traced.toFixed(0)} (${r.ratio.toFixed(2)}x)`
  const offOf = (a, b) => ((a.off + b.off) / 2).toFixed(0)
  table(
    ['case', 'no telemetry, CPU ns/op', 'API, no SDK', 'SDK, every span recorded'],
    [
      [
        'keyNow, cached (the guards\u2019 hot path)',
        offOf(results.noSdk.now, results.sdk.now),
        cell(results.noSdk.now),
        cell(results.sdk.now),
      ],
      [
        'authenticate, cached',
        offOf(results.noSdk.verify, results.sdk.verify),
        cell(results.noSdk.verify),
        cell(results.sdk.verify),
      ],
    ],
  )
  console.log(
    `\nEach comparison in a process of its own; medians of ${PAIRS} alternating pairs of batches. ${machineLine()}`,
  )
}
