// The administrative console: what its first load weighs (JavaScript and CSS, compressed as the
// server sends them) and how long its pages take in Chromium against the built reference server on
// embedded PGlite, with a project of CONSOLE_BENCH_KEYS API keys (default 10,000). Each time is
// from navigation to the page's content shown (the sign-in form; the project list; the first page
// of keys), the median and 95th percentile of CONSOLE_BENCH_ROUNDS loads (default 15). Also: one
// page of that project's keys from the API, over HTTP. Needs Chromium (apt-get install chromium)
// and the built server (pnpm --filter @keyward/example-server build; `pnpm bench` builds it).
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { machineLine, table } from './harness.mjs'
import { searchBench } from './key-search.mjs'

const MAIN = fileURLToPath(new URL('../examples/server/dist/main.js', import.meta.url))
const CHROMIUM = [process.env.KEYWARD_CHROMIUM_BIN, '/usr/bin/chromium'].find(
  (path) => path && existsSync(path),
)
const KEYS = Number(process.env.CONSOLE_BENCH_KEYS ?? 10_000)
const ROUNDS = Number(process.env.CONSOLE_BENCH_ROUNDS ?? 15)
// The budget of the console's JavaScript, gzipped as served.
const BUDGET_BYTES = 200 * 1024

if (process.env.KEYWARD_PG_URL) await searchBench(process.env.KEYWARD_PG_URL)
else console.log('The search of keys on PostgreSQL skipped: set KEYWARD_PG_URL.\n')
if (process.env.CONSOLE_BENCH === 'search') process.exit(0)

if (!CHROMIUM || !existsSync(MAIN)) {
  console.log(
    CHROMIUM
      ? 'Skipped: build the reference server first (pnpm --filter @keyward/example-server build).'
      : 'Skipped: install Chromium (apt-get install chromium).',
  )
  process.exit(0)
}

const percentile = (values, p) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]
const ms = (value) => `${value.toFixed(0)} ms`

/** The built server on a fresh PGlite directory, and the developer key it prints once. */
async function startServer(dir) {
  const child = spawn(process.execPath, [MAIN], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', KEYWARD_DATA_DIR: join(dir, 'data') },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk))
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    const base = /Listening on (http:\/\/\S+)/.exec(out)?.[1]
    const key = /Developer key {2}(ak_[A-Za-z0-9_-]{32})/.exec(out)?.[1]
    if (base && key) return { child, base, key }
    await new Promise((done) => setTimeout(done, 50))
  }
  child.kill()
  throw new Error(`The server did not start:\n${out}`)
}

/** The bytes of the console's files: the first load's script and style sheet, then its chunks, gzipped as served. */
async function firstLoad(base) {
  const headers = { 'accept-encoding': 'gzip' }
  const html = await (await fetch(`${base}/console/`, { headers })).text()
  const files = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.(?:js|css))"/g)].map((match) => match[1])
  // And the chunks the script loads later (the other pages', the charts'), which it and its chunks name.
  for (let at = 0; at < files.length; at++) {
    if (!files[at].endsWith('.js')) continue
    const script = await (await fetch(`${base}/console/${files[at]}`)).text()
    for (const [, file] of script.matchAll(/"\.\/([\w-]+\.(?:js|css))"/g)) {
      if (!files.includes(`assets/${file}`)) files.push(`assets/${file}`)
    }
  }
  const rows = []
  for (const file of files) {
    const response = await fetch(`${base}/console/${file}`, { headers })
    const raw = (await response.arrayBuffer()).byteLength
    rows.push({ file, sent: Number(response.headers.get('content-length')), raw })
  }
  return rows
}

const dir = mkdtempSync(join(tmpdir(), 'keyward-console-bench-'))
const server = await startServer(dir)
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
  ],
})
try {
  const { base, key } = server
  const asDeveloper = { 'x-developer-key': key, 'content-type': 'application/json' }
  const created = await (
    await fetch(`${base}/api/v1/projects`, { method: 'POST', headers: asDeveloper, body: '{"name":"Bench"}' })
  ).json()
  const projectId = created.project.id
  const started = performance.now()
  let next = 1
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < KEYS) {
        next++
        const response = await fetch(`${base}/api/v1/projects/${projectId}/api-keys`, {
          method: 'POST',
          headers: asDeveloper,
          body: '{"name":"bench"}',
        })
        if (response.status !== 201) throw new Error(`key creation answered ${response.status}`)
      }
    }),
  )
  console.log(
    `${KEYS} keys in one project, created in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  )

  const load = await firstLoad(base)
  const sent = load.filter((row) => row.file.endsWith('.js')).reduce((sum, row) => sum + row.sent, 0)
  table(
    ['first load', 'sent (gzip)', 'raw'],
    [
      ...load.map((row) => [
        row.file,
        `${(row.sent / 1024).toFixed(1)} KB`,
        `${(row.raw / 1024).toFixed(1)} KB`,
      ]),
      [
        'JavaScript',
        `${(sent / 1024).toFixed(1)} KB`,
        `budget ${BUDGET_BYTES / 1024} KB: ${(sent / BUDGET_BYTES).toFixed(2)}x of it`,
      ],
    ],
  )

  // Each load in a fresh browser context: no cache, as a first visit; the signed-in pages in a
  // context signed in once.
  const times = { 'sign-in page': [], projects: [], [`keys of a project with ${KEYS}`]: [] }
  const signedIn = await browser.newContext()
  const page = await signedIn.newPage()
  await page.goto(`${base}/console/`)
  await page.getByLabel('Developer key').fill(key)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Projects' }).waitFor()
  const timed = async (target, url, shown) => {
    const begin = performance.now()
    await target.goto(url)
    await shown()
    return performance.now() - begin
  }
  for (let round = 0; round < ROUNDS; round++) {
    const fresh = await browser.newContext()
    const first = await fresh.newPage()
    times['sign-in page'].push(
      await timed(first, `${base}/console/`, () => first.getByLabel('Developer key').waitFor()),
    )
    await fresh.close()
    times.projects.push(
      await timed(page, `${base}/console/?r=${round}#/projects`, () =>
        page.getByRole('link', { name: 'Bench' }).first().waitFor(),
      ),
    )
    times[`keys of a project with ${KEYS}`].push(
      await timed(page, `${base}/console/?r=${round}#/projects/${projectId}`, () =>
        page.locator('table.list tbody tr').first().waitFor(),
      ),
    )
  }
  // The projects page's first render with the CPU 4 times slower (CDP), in a fresh signed-in
  // context each time: the budget is 1 s.
  const throttled = []
  for (let round = 0; round < ROUNDS; round++) {
    const fresh = await browser.newContext()
    await fresh.addCookies(await signedIn.cookies())
    const slow = await fresh.newPage()
    const cdp = await fresh.newCDPSession(slow)
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 })
    throttled.push(
      await timed(slow, `${base}/console/#/projects`, () =>
        slow.getByRole('link', { name: 'Bench', exact: true }).waitFor(),
      ),
    )
    await fresh.close()
  }
  times['projects, CPU 4x slower (budget 1 s)'] = throttled
  const api = []
  for (let round = 0; round < ROUNDS * 2; round++) {
    const begin = performance.now()
    const response = await fetch(`${base}/api/v1/projects/${projectId}/api-keys?limit=50`, {
      headers: asDeveloper,
    })
    await response.arrayBuffer()
    api.push(performance.now() - begin)
  }
  times['API: one page of keys (limit 50)'] = api
  console.log('')
  table(
    ['page, from navigation to content shown', 'p50', 'p95', 'range'],
    Object.entries(times).map(([name, values]) => [
      name,
      ms(percentile(values, 0.5)),
      ms(percentile(values, 0.95)),
      `${ms(Math.min(...values))} to ${ms(Math.max(...values))}`,
    ]),
  )
  console.log(`\n${machineLine()}`)
} finally {
  await browser.close()
  server.child.kill('SIGTERM')
  await new Promise((done) => server.child.once('exit', done))
  rmSync(dir, { recursive: true, force: true })
}
