// A process on the built SQLite store (file: argument 1). `hold` (argument 2): opens it, prints
// { ready } and runs until killed. `write`: issues project keys one after the other, printing
// { id } for each once its insert has returned (acknowledged), until killed. When the store is
// refused, it prints { error, name } and exits with 2. SQLITE_WAIT_MS sets `waitMs`.
import { createKeyward } from '@keyward/core'
import { createSqliteKeyStore } from '../../dist/index.js'

const [path, mode] = process.argv.slice(2)
const wait = process.env.SQLITE_WAIT_MS
const print = (line) => process.stdout.write(`${JSON.stringify({ ...line, pid: process.pid })}\n`)
try {
  const store = await createSqliteKeyStore({ path, ...(wait ? { waitMs: Number(wait) } : {}) })
  print({ ready: true })
  if (mode === 'write') {
    const keyward = createKeyward({ store })
    for (;;) {
      const { record } = await keyward.issueProjectKey(`p-${process.pid}`)
      print({ id: record.id })
    }
  }
  setInterval(() => {}, 60_000)
} catch (error) {
  print({ error: error.message, name: error.name })
  process.exit(2)
}
