// A process of a fleet whose change feed takes its freshness from the Redis relay, through the
// built package, for the relay's fault tests. Argument 1 is JSON: { url, schema, redisUrl, prefix,
// boundMs, name }. It writes one JSON line whenever it starts or stops leading ({ leading }), and
// closes its feed and exits on SIGTERM.
import { pgChangeFeed } from '../../dist/pg.js'

const { url, schema, redisUrl, prefix, boundMs, name } = JSON.parse(process.argv[2])
const feed = pgChangeFeed({
  connectionString: url,
  schema,
  freshnessBoundMs: boundMs,
  freshnessSource: 'redis',
  redis: { url: redisUrl, prefix, options: { connectionName: name } },
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
