// A consumer of @keyward/cli: the `keyward` binary as npm installs it from the tarball (its link
// in node_modules/.bin, its shebang, its dist), generating, hashing and checking keys offline, and
// printing the SQL migrations.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { hashKey, KEY_PATTERN } from '@keyward/core'
import { runFixture } from './fixture.js'

runFixture('@keyward/cli', async () => {
  const keyward = (args: string[], input?: string) =>
    spawnSync(join('node_modules', '.bin', 'keyward'), args, { input, encoding: 'utf8' })

  const generated = keyward(['generate', '--json'])
  assert.equal(generated.status, 0, generated.stderr)
  const { key, hash } = JSON.parse(generated.stdout) as { key: string; hash: string }
  assert.match(key, KEY_PATTERN)
  assert.equal(hash, await hashKey(key))

  const hashed = keyward(['hash'], key)
  assert.equal(hashed.status, 0, hashed.stderr)
  assert.equal(hashed.stdout.trim(), hash)

  const checked = keyward(['check'], key.slice(0, 34))
  assert.equal(checked.status, 1, 'a malformed key is a "no" (exit 1)')
  assert.ok(!`${checked.stdout}${checked.stderr}`.includes(key.slice(0, 34)), 'the key is never echoed')

  // The SQL migrations, offline: the installed package's own schema files, for another schema name.
  const schemaSql = keyward(['schema', 'sql', '--pg-schema', 'billing_keys', '--json'])
  assert.equal(schemaSql.status, 0, schemaSql.stderr)
  const versions = JSON.parse(schemaSql.stdout) as { version: number; sql: string }[]
  assert.deepEqual(
    versions.map((v) => v.version),
    versions.map((_, i) => i + 1),
  )
  assert.ok(versions[0]?.sql.includes('CREATE TABLE IF NOT EXISTS "billing_keys".api_keys'))
  return 'keyward generate, hash, check and schema sql from the installed binary'
})
