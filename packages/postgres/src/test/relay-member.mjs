// A process of a fleet whose change feed takes its freshness from the Redis relay (or, without
// `redisUrl`, from the beacon), through the built package, for the relay's and the fleet's fault
// tests. Argument 1 is JSON: { url, schema, redisUrl?, prefix?, boundMs, name? }. It writes one
// JSON line whenever it starts or stops leading ({ leading }), and closes its feed and exits on
// SIGTERM.
import { pgChangeFeed } from '../../dist/pg.js'

const { url, schema, redisUrl, prefix, boundMs, name } = JSON.parse(process.argv[2])
const feed = pgChangeFeed({
  connectionString: url,
  schema,
  freshnessBoundMs: boundMs,
  ...(redisUrl
    ? { freshnessSource: 'redis', redis: { url: redisUrl, prefix, options: { connectionName: name } } }
    : { freshnessSource: 'beacon' }),
})
let leading = false
setInterval(() => {
  if (feed.leading === leading) return
  leading = feed.leading
  process.stdout.write(`${JSON.stringify({ leading })}\n`)
}, 10)
process.on('SIGTERM', () => {
  feed.close().then(() => process.exit(0))
})
await feed.start()
