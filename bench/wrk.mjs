// HTTP load from wrk, a load generator written in C, for the benches whose server handles tens of
// thousands of requests a second. autocannon (Node) takes most of a core to send 30,000 requests
// a second; on a 2-core machine, where the load shares one core with anything else the bench runs
// (the flood's sender), the load generator then limits what is measured, not the server. wrk
// sends the same load for about half the CPU. `pnpm bench` installs it where it can (root, with
// apt-get); elsewhere the benches that use it say what to install.
import { spawn, spawnSync } from 'node:child_process'

const found = () => spawnSync('sh', ['-c', 'command -v wrk'], { stdio: 'ignore' }).status === 0

/** Makes sure wrk is installed (apt-get as root where it is missing); throws how to get it otherwise. */
export function ensureWrk() {
  if (found()) return
  const root = typeof process.getuid === 'function' && process.getuid() === 0
  const apt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0
  if (root && apt) {
    console.error('Installing wrk, the HTTP load generator of this bench (apt-get install wrk)...')
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
    const install = () => spawnSync('apt-get', ['install', '-y', 'wrk'], { stdio: 'ignore', env })
    if (install().status !== 0) {
      spawnSync('apt-get', ['update'], { stdio: 'ignore', env })
      install()
    }
  }
  if (!found()) throw new Error('This bench needs wrk, an HTTP load generator: install the wrk package.')
}

const hasTaskset = spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0

function wrkArgs({ url, connections, seconds, headers = {} }) {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s']
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`)
  return [...args, url]
}

function spawnWrk(options, cpu) {
  const args = wrkArgs(options)
  return cpu !== undefined && hasTaskset
    ? spawn('taskset', ['-c', String(cpu), 'wrk', ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] })
}

/** Reads wrk's report: requests answered, over how long, and how many were not 2xx or 3xx. */
export function parseWrk(text) {
  const done = /(\d+) requests in ([\d.]+)(us|ms|s|m),/.exec(text)
  if (!done) throw new Error(`wrk printed no result:\n${text}`)
  const unit = { us: 1e-6, ms: 1e-3, s: 1, m: 60 }[done[3]]
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text)
  return {
    requests: Number(done[1]),
    seconds: Number(done[2]) * unit,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0),
    errors: errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
  }
}

function collect(child) {
  let text = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    text += chunk
  })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) =>
      code === 0 ? resolve(parseWrk(text)) : reject(new Error(`wrk exited with ${code}:\n${text}`)),
    )
  })
}

/**
 * Loads `url` for `seconds` (whole seconds) over `connections` keep-alive connections, from one
 * wrk thread pinned to `cpu` where taskset exists.
 *
 * @returns {Promise<{ requests: number, seconds: number, non2xx: number, errors: number }>}
 */
export function wrk(options, cpu) {
  return collect(spawnWrk(options, cpu))
}

/**
 * Starts a load that runs until `stop()` (a ceiling of an hour), for benches that count answers
 * on the server's side; `stop()` resolves with wrk's report.
 */
export function startWrk(options, cpu) {
  const child = spawnWrk({ ...options, seconds: 3600 }, cpu)
  const report = collect(child)
  return {
    stop() {
      child.kill('SIGINT') // wrk stops and prints its report
      return report
    },
  }
}
