// A process that opens the built PGlite store on a data directory (argument 1), issues a project
// key, prints one JSON line ({ key, pid }), and runs until it is killed. With `close-on-signal`
// (argument 2) it closes the store on SIGINT and SIGTERM, as the reference server does; without,
// a signal ends it as it ends any Node script. DATA_DIR_WAIT_MS sets `dataDirWaitMs`. When the
// store is refused, it prints { error, name, pid } and exits with 2.
import { createKeyward } from '@keyward/core'
import { createPGliteKeyStore } from '../../dist/pglite.js'

const [dataDir, mode] = process.argv.slice(2)
const wait = process.env.DATA_DIR_WAIT_MS
const print = (line) => process.stdout.write(`${JSON.stringify({ ...line, pid: process.pid })}\n`)
try {
  const store = await createPGliteKeyStore({ dataDir }, wait ? { dataDirWaitMs: Number(wait) } : {})
  if (mode === 'close-on-signal') {
    const stop = () => store.close().then(() => process.exit(0))
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  }
  const { key } = await createKeyward({ store }).issueProjectKey(`p-${process.pid}`)
  print({ key })
  setInterval(() => {}, 60_000)
} catch (error) {
  print({ error: error.message, name: error.name })
  process.exit(2)
}
