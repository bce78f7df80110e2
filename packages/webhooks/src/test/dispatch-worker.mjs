// A process that runs the built webhook dispatcher on PostgreSQL, for the crash tests: it prints
// "ready" once running, and each attempt's outcome as a JSON line. Argument 1 is JSON:
// { url, schema, leaseMs }.
import { createPgKeyStore } from '@keyward/postgres/pg'
import { createWebhookDispatcher } from '../../dist/index.js'

const { url, schema, leaseMs } = JSON.parse(process.argv[2])
const store = await createPgKeyStore({ connectionString: url, poolConfig: { max: 2 } }, { schema })
const dispatcher = createWebhookDispatcher({
  store: store.webhooks,
  allowHttp: true,
  allowPrivate: true,
  leaseMs,
  pollMs: 100,
  onEvent: (event) =>
    process.stdout.write(`${JSON.stringify({ ...event, error: event.error && String(event.error) })}\n`),
})
process.stdout.write('ready\n')
process.once('SIGTERM', async () => {
  await dispatcher.stop()
  await store.close()
  process.exit(0)
})
