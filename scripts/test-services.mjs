// Before `pnpm test` and `pnpm test:faults`: installs what some tests need and this machine lacks,
// where it can (root, with apt-get): PgBouncer, for the tests through a transaction pooler,
// Chromium, for the console's tests in a real browser, and Go, for the verification endpoint's Go
// client. Elsewhere it says once why those tests will be skipped; it never fails.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const onPath = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0

const NEEDS = [
  {
    name: 'PgBouncer',
    package: 'pgbouncer',
    aptOptions: ['--no-install-recommends'],
    installed: () =>
      Boolean(process.env.KEYWARD_PGBOUNCER_BIN) || existsSync('/usr/sbin/pgbouncer') || onPath('pgbouncer'),
    skipped: 'the tests through a transaction pooler are skipped (install the pgbouncer package to run them)',
  },
  {
    name: 'Chromium',
    package: 'chromium',
    aptOptions: [],
    installed: () =>
      Boolean(process.env.KEYWARD_CHROMIUM_BIN) ||
      existsSync('/usr/bin/chromium') ||
      existsSync('/usr/bin/chromium-browser'),
    skipped: "the console's tests in a real browser are skipped (install the chromium package to run them)",
  },
  {
    name: 'Go',
    package: 'golang-go',
    aptOptions: ['--no-install-recommends'],
    installed: () => Boolean(process.env.KEYWARD_GO_BIN) || onPath('go'),
    skipped:
      'the Go client of the verification endpoint is not tested (install the golang-go package to test it)',
  },
]

const root = typeof process.getuid === 'function' && process.getuid() === 0
const apt = onPath('apt-get')
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
// Chromium comes with the fonts it recommends, so that its pages and screenshots show text.
const install = (need) =>
  spawnSync('apt-get', ['install', '-y', ...need.aptOptions, need.package], { stdio: 'ignore', env })
    .status === 0

let updated = false
for (const need of NEEDS) {
  if (need.installed()) continue
  if (root && apt) {
    console.log(`Installing ${need.name} for the tests (apt-get install ${need.package})...`)
    if (!install(need) && !updated) {
      spawnSync('apt-get', ['update'], { stdio: 'ignore', env })
      updated = true
      install(need)
    }
  }
  if (!need.installed()) console.log(`${need.name} is not installed: ${need.skipped}.`)
}
