// Before `pnpm test` and `pnpm test:faults`: installs PgBouncer when it is missing and this machine
// can install it (root, with apt-get), so that the tests through a transaction pooler run on a
// fresh machine too. Elsewhere it says once why those tests will be skipped; it never fails.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const installed = () =>
  Boolean(process.env.KEYWARD_PGBOUNCER_BIN) ||
  existsSync('/usr/sbin/pgbouncer') ||
  spawnSync('sh', ['-c', 'command -v pgbouncer'], { stdio: 'ignore' }).status === 0

if (!installed()) {
  const root = typeof process.getuid === 'function' && process.getuid() === 0
  const apt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0
  if (root && apt) {
    console.log(
      'Installing PgBouncer for the tests through a transaction pooler (apt-get install pgbouncer)...',
    )
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
    const install = () =>
      spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'pgbouncer'], {
        stdio: 'ignore',
        env,
      })
    if (install().status !== 0) {
      spawnSync('apt-get', ['update'], { stdio: 'ignore', env })
      install()
    }
  }
  if (!installed()) {
    console.log(
      'PgBouncer is not installed: the tests through a transaction pooler are skipped (install the pgbouncer package to run them).',
    )
  }
}
