#!/usr/bin/env node
// The `keyward` command: runs the built CLI. In a checkout of the repository, before the first
// build, it says how to build instead of failing with a stack trace.
const entry = new URL('../dist/bin.js', import.meta.url)
try {
  await import(entry.href)
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes(entry.pathname)) throw error
  process.stderr.write('keyward: the CLI is not built yet: run `pnpm build` at the repository root first.\n')
  process.exitCode = 4
}
