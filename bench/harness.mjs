// A small, honest micro-benchmark harness: cases run interleaved, round after round, each
// round long enough to drown the timer; the median round is reported. Async cases are awaited
// one after another, as a request handler would.

// The clock: wall time, or with BENCH_CLOCK=cpu this process's CPU time (user + system), which
// the other work of a shared machine disturbs much less.
const cpuClock = process.env.BENCH_CLOCK === 'cpu'
const now = cpuClock
  ? () => {
      const { user, system } = process.cpuUsage()
      return BigInt(user + system) * 1000n
    }
  : () => process.hrtime.bigint()

async function timeBatch(fn, iterations, isAsync) {
  const start = now()
  if (isAsync) for (let i = 0; i < iterations; i++) await fn(i)
  else for (let i = 0; i < iterations; i++) fn(i)
  return Number(now() - start) / iterations
}

/**
 * @param {{ name: string, fn: (i: number) => unknown, async?: boolean }[]} cases
 * @param {{ rounds?: number, roundMs?: number }} [options]
 * @returns {Promise<Map<string, number>>} median ns/op by case name
 */
export async function measure(cases, { rounds = 15, roundMs = 60 } = {}) {
  const plan = []
  for (const c of cases) {
    // Warm up and calibrate: iterations that take about roundMs.
    let iterations = 1000
    for (;;) {
      const ns = await timeBatch(c.fn, iterations, c.async)
      if (ns * iterations > (roundMs * 1e6) / 4 || iterations > 1e7) {
        iterations = Math.max(1000, Math.round((roundMs * 1e6) / ns))
        break
      }
      iterations *= 4
    }
    plan.push({ ...c, iterations, samples: [] })
  }
  for (let r = 0; r < rounds; r++) {
    for (const c of plan) {
      globalThis.gc?.()
      c.samples.push(await timeBatch(c.fn, c.iterations, c.async))
    }
  }
  const result = new Map()
  for (const c of plan) {
    const sorted = [...c.samples].sort((a, b) => a - b)
    result.set(c.name, sorted[Math.floor(sorted.length / 2)])
  }
  return result
}

/**
 * Runs `op` with `inFlight` concurrent loops for `ms`; returns operations per second and the
 * CPU time of this process per operation (microseconds), which other load on the machine
 * disturbs less than throughput.
 */
export async function throughput(op, inFlight, ms) {
  let count = 0
  let i = 0
  const end = performance.now() + ms
  const started = performance.now()
  const cpu = process.cpuUsage()
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        await op(i++)
        count++
      }
    }),
  )
  const { user, system } = process.cpuUsage(cpu)
  return { opsPerSecond: (count * 1000) / (performance.now() - started), cpuPerOp: (user + system) / count }
}

/** The median of a list of numbers. */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

/** Prints a markdown table. */
export function table(headers, rows) {
  const lines = [`| ${headers.join(' | ')} |`, `| ${headers.map(() => '---').join(' | ')} |`]
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`)
  console.log(lines.join('\n'))
}

export function machineLine() {
  return `Node ${process.version}, ${process.platform}/${process.arch}; median of interleaved rounds${cpuClock ? ' of CPU time' : ''}.`
}

/**
 * Compares two async operations by the CPU time of this process per operation, in pairs of
 * batches run in alternating order; returns the median CPU ns/op of each and the median of the
 * pairs' ratios (b over a). CPU time is what other load on a shared machine disturbs least,
 * and the ratio of two batches run back to back is what carries over between machines.
 *
 * @param {(i: number) => Promise<unknown>} a
 * @param {(i: number) => Promise<unknown>} b
 * @returns {Promise<{ a: number, b: number, ratio: number }>}
 */
export async function pairedCpu(a, b, { pairs = 41, batch = 20_000 } = {}) {
  const run = async (fn) => {
    const cpu = process.cpuUsage()
    for (let i = 0; i < batch; i++) await fn(i)
    const { user, system } = process.cpuUsage(cpu)
    return ((user + system) * 1000) / batch
  }
  for (let i = 0; i < 3; i++) {
    await run(a)
    await run(b)
  }
  const as = []
  const bs = []
  const ratios = []
  for (let p = 0; p < pairs; p++) {
    globalThis.gc?.()
    const order = p % 2 === 0 ? [a, b] : [b, a]
    const first = await run(order[0])
    const second = await run(order[1])
    const [ta, tb] = p % 2 === 0 ? [first, second] : [second, first]
    as.push(ta)
    bs.push(tb)
    ratios.push(tb / ta)
  }
  const median = (values) => [...values].sort((x, y) => x - y)[values.length >> 1]
  return { a: median(as), b: median(bs), ratio: median(ratios) }
}
