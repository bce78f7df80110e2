// Strict revocation for a fleet through Redis: one process (the relay's leader, chosen by a lease in
// Redis) listens on the primary and republishes the change feed on a Redis channel, with a
// heartbeat after each round that proves how far the relay has gone; every other process only
// subscribes. The proof is in the Postgres guide ("The Redis relay").
import pg from 'pg'
import type { FeedFences } from './fences.js'
import { type SerialQuery, serially } from './pg-beacon.js'
import { CHANGE_CHANNEL } from './schema.js'

/**
 * The few methods of an ioredis client the relay uses (ioredis 5 has them all). The relay makes
 * connections of its own with `duplicate()` and closes them itself; it never uses yours.
 */
export interface RelayRedisClient {
  duplicate(override?: Record<string, unknown>): RelayRedisClient
  connect(): Promise<void>
  disconnect(reconnect?: boolean): void
  on(event: string, listener: (...args: never[]) => void): unknown
  get(key: string): Promise<string | null>
  incr(key: string): Promise<number>
  set(key: string, value: string, px: 'PX', ms: number, nx: 'NX'): Promise<string | null>
  eval(script: string, keys: number, ...args: (string | number)[]): Promise<unknown>
  publish(channel: string, message: string): Promise<number>
  subscribe(channel: string): Promise<unknown>
}

/** The keys and the channel of one relay, all under one prefix. */
export interface RelayNames {
  /** The lease of the leader: its token, with an expiry. */
  readonly leader: string
  /** The epoch: a counter the leader increments once a round. */
  readonly epoch: string
  /** Where changes and heartbeats are published. */
  readonly channel: string
}

export const relayNames = (prefix: string): RelayNames => ({
  leader: `${prefix}:relay-leader`,
  epoch: `${prefix}:relay-epoch`,
  channel: `${prefix}:relay`,
})

// Renews the lease only while it is still this leader's.
const RENEW =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end"
const RELEASE =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
// A fence of the leader's: a notification on a channel only it listens to, committed without
// waiting for the WAL flush (nothing of it must survive a crash).
const FENCE = "SELECT pg_notify($1, $2), set_config('synchronous_commit', 'off', true)"

/** The `application_name` of the leader's LISTEN connection, unless `clientConfig` names another. */
export const RELAY_APPLICATION = 'keyward relay'

/** What the relay reports to its feed. */
export interface RelayHooks {
  /** A change notification's payload, relayed verbatim. */
  readonly change: (payload: string) => void
  /**
   * The stream of changes may have a gap (the subscription was lost, or a relay session this
   * subscription had not seen started): the feed must count as disconnected now.
   */
  readonly reset: (error?: unknown) => void
  /** Freshness evidence arrived; `wasLate` as `FeedFences.received` answers it. */
  readonly evidence: (wasLate: boolean) => void
}

export interface RelaySettings {
  readonly names: RelayNames
  readonly schema: string
  /** Makes the relay's Redis connections (not yet connected). */
  readonly redis: (override: Record<string, unknown>) => Promise<RelayRedisClient>
  /** The primary, for the leader's LISTEN connection. */
  readonly pgConfig: pg.ClientConfig
  /** Whether a payload of the change channel is for this feed's schema. */
  readonly mine: (payload: string) => boolean
  readonly fences: FeedFences
  /** The period of a round and of a receiver's epoch read, in milliseconds. */
  readonly everyMs: number
  readonly hooks: RelayHooks
  readonly now?: () => number
}

const randomToken = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('')

const noop = () => {}

/**
 * @internal One process's side of the relay: a receiver always, the leader while it holds the lease.
 *
 * Receiver: it subscribes to the relay's channel; once the subscription is confirmed, it reads the
 * epoch (GET) once a period (half a period after each heartbeat, or every period while none comes), noting the time e on its clock (`fences.sent()`) before the read, which
 * answers g. A heartbeat of epoch E > g on the subscription comes from a round whose INCR ran after
 * that read, so after e: every change committed before e was published on the channel before that
 * heartbeat (see the leader), and reached this subscription before it, so `fences.received(n)`
 * dates the feed's freshness from e. A subscription lost, or the first message of a relay session
 * it had not seen (a new leader, or a leader's new connection), resets the feed (a gap may precede
 * it) and voids the reads made before.
 */
export class RedisRelay {
  readonly #s: RelaySettings
  readonly #now: () => number
  readonly #token = randomToken()
  #command: RelayRedisClient | undefined
  #subscriber: RelayRedisClient | undefined
  /** Bumped on every reset: epoch reads made before it prove nothing. */
  #generation = 0
  /** Bumped when a subscription is lost: its confirmation, if it comes late, means nothing. */
  #subscription = 0
  #subscribed = false
  /** Relay sessions seen on the current subscription since its last reset (oldest first). */
  #sessions: string[] = []
  /** The highest epoch heard in a heartbeat since the last reset. */
  #latest = -1
  /** Answered epoch reads not yet covered by a heartbeat, in order (their epochs never decrease). */
  #reads: { readonly n: number; readonly epoch: number }[] = []
  #reading = false
  #readAgain = false
  #heardAt = Number.NEGATIVE_INFINITY
  #triedLeadAt = Number.NEGATIVE_INFINITY
  #timer: ReturnType<typeof setInterval> | undefined
  /** The read scheduled after the latest heartbeat. */
  #next: ReturnType<typeof setTimeout> | undefined
  #leader: RelayLeader | undefined
  #closed = false

  constructor(settings: RelaySettings) {
    this.#s = settings
    this.#now = settings.now ?? (() => performance.now())
  }

  /** Whether this process holds the lease and relays. */
  get leading(): boolean {
    return this.#leader?.relaying === true
  }

  /** Connects both Redis connections; resolves once the first attempt is made. */
  async start(): Promise<void> {
    const command = await this.#s.redis({ enableOfflineQueue: false })
    const subscriber = await this.#s.redis({ enableOfflineQueue: false, autoResubscribe: false })
    this.#command = command
    this.#subscriber = subscriber
    command.on('error', noop)
    subscriber.on('error', noop)
    subscriber.on('close', () => this.#lost(new Error('The relay subscription was lost.')))
    subscriber.on('ready', () => this.#subscribe(subscriber))
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.#s.names.channel) this.#heard(message)
    })
    this.#timer = setInterval(() => this.#tick(), this.#s.everyMs)
    this.#timer.unref?.()
    await Promise.allSettled([command.connect(), subscriber.connect()])
  }

  /** Reads the epoch now (a revocation waits for evidence dated after this). */
  request(): void {
    this.#read()
  }

  async close(): Promise<void> {
    this.#closed = true
    clearInterval(this.#timer)
    clearTimeout(this.#next)
    await this.#leader?.stop()
    this.#leader = undefined
    this.#subscribed = false
    this.#generation++
    this.#subscription++
    this.#subscriber?.disconnect()
    this.#command?.disconnect()
  }

  #subscribe(subscriber: RelayRedisClient): void {
    // Not the reads' generation: the first message may be handled before this confirmation is.
    const subscription = this.#subscription
    subscriber.subscribe(this.#s.names.channel).then(() => {
      if (this.#closed || subscription !== this.#subscription) return
      this.#subscribed = true
      this.#read()
    }, noop)
  }

  // The subscription is gone: what was published meanwhile is lost to it.
  #lost(error: unknown): void {
    const was = this.#subscribed
    this.#subscribed = false
    this.#subscription++
    this.#reset()
    if (was || this.#sessions.length > 0) this.#s.hooks.reset(error)
    this.#sessions = []
  }

  #reset(): void {
    this.#generation++
    this.#reads = []
    this.#latest = -1
    this.#s.fences.lost()
  }

  #heard(message: string): void {
    const space = message.indexOf(' ', 2)
    if (space < 0 || message[1] !== ' ') return
    const kind = message[0]
    const session = message.slice(2, space)
    const body = message.slice(space + 1)
    if (!this.#sessions.includes(session)) {
      // A session this subscription has not seen: changes committed before its leader listened
      // may never be relayed. The feed counts as disconnected (its cache empties), and only
      // reads made from now on count.
      this.#reset()
      this.#s.hooks.reset(new Error('A new relay session started.'))
      this.#sessions.push(session)
      if (this.#sessions.length > 16) this.#sessions.shift()
    }
    if (kind === 'c') {
      this.#s.hooks.change(body)
      return
    }
    const epoch = Number(body)
    if (kind !== 'h' || !Number.isSafeInteger(epoch)) return
    this.#heardAt = this.#now()
    if (epoch > this.#latest) this.#latest = epoch
    // Heartbeats come every period: read half a period after one, before the next round's INCR,
    // so that the next heartbeat covers a read about half a period old.
    if (this.#next === undefined) {
      this.#next = setTimeout(
        () => {
          this.#next = undefined
          this.#read()
        },
        Math.floor(this.#s.everyMs / 2),
      )
      this.#next.unref?.()
    }
    let covered: number | undefined
    while (this.#reads.length > 0 && this.#reads[0]!.epoch < epoch) covered = this.#reads.shift()!.n
    if (covered !== undefined) this.#s.hooks.evidence(this.#s.fences.received(covered))
  }

  #read(): void {
    const command = this.#command
    if (!this.#subscribed || !command || this.#closed) return
    if (this.#reading) {
      this.#readAgain = true
      return
    }
    this.#reading = true
    this.#readAgain = false
    const generation = this.#generation
    // The time before the read is sent: the read runs on Redis after it.
    const n = this.#s.fences.sent()
    command.get(this.#s.names.epoch).then(
      (value) => {
        this.#reading = false
        if (generation === this.#generation) {
          const epoch = Number(value ?? 0)
          // A heartbeat may arrive before the read's answer: it still names a later epoch.
          if (this.#latest > epoch) this.#s.hooks.evidence(this.#s.fences.received(n))
          else this.#reads.push({ n, epoch })
        }
        if (this.#readAgain) this.#read()
      },
      () => {
        this.#reading = false
      },
    )
  }

  #tick(): void {
    if (this.#closed) return
    // While heartbeats come, each one schedules the next read; without them, read every period.
    const now = this.#now()
    if (now - this.#heardAt > this.#s.everyMs) this.#read()
    // No heartbeat for two periods: perhaps no leader. Try the lease (at most once per four periods).
    const missing = now - this.#heardAt > 2 * this.#s.everyMs
    if (missing && !this.#leader && now - this.#triedLeadAt >= 4 * this.#s.everyMs) {
      this.#triedLeadAt = now
      this.#tryLead()
    }
  }

  #tryLead(): void {
    const command = this.#command
    if (!command) return
    const ttlMs = leaseMs(this.#s.everyMs)
    command.set(this.#s.names.leader, this.#token, 'PX', ttlMs, 'NX').then((taken) => {
      if (taken !== 'OK' || this.#closed || this.#leader) return
      const leader = new RelayLeader(this.#s, command, this.#token, ttlMs, () => {
        if (this.#leader === leader) this.#leader = undefined
      })
      this.#leader = leader
      leader.start()
    }, noop)
  }
}

/** The lease of the leader: four periods, at least one second. */
const leaseMs = (everyMs: number) => Math.max(1000, 4 * everyMs)

/**
 * @internal The leader: holds the lease (renewed every period; it only decides who relays, not
 * whether what is relayed is right), and runs relay sessions, each one LISTEN connection to the
 * primary and one Redis connection that publishes, both its own. A round: INCR the epoch (E), then
 * commit a fence on the LISTEN connection and wait for it to come back (every notification
 * committed before the fence, so before the INCR returned, has then been received, and relayed:
 * each change is published the moment it is received), then publish heartbeat E, on the same
 * Redis connection, after them. When either connection fails, the session ends; the next one has a
 * new name, which resets every receiver that sees it.
 */
class RelayLeader {
  #stopped = false
  #session: RelaySession | undefined
  #renewer: ReturnType<typeof setInterval> | undefined
  #renewedAt: number
  #failures = 0
  #retry: ReturnType<typeof setTimeout> | undefined
  readonly #now: () => number

  constructor(
    private readonly s: RelaySettings,
    private readonly command: RelayRedisClient,
    private readonly token: string,
    private readonly ttlMs: number,
    private readonly ended: () => void,
  ) {
    this.#now = s.now ?? (() => performance.now())
    this.#renewedAt = this.#now()
  }

  get relaying(): boolean {
    return this.#session?.running === true
  }

  start(): void {
    this.#renewer = setInterval(() => this.#renew(), this.s.everyMs)
    this.#renewer.unref?.()
    this.#open()
  }

  async stop(): Promise<void> {
    if (this.#stopped) return
    this.#stopped = true
    clearInterval(this.#renewer)
    clearTimeout(this.#retry)
    const session = this.#session
    this.#session = undefined
    await session?.end()
    await this.command.eval(RELEASE, 1, this.s.names.leader, this.token).catch(noop)
    this.ended()
  }

  #renew(): void {
    // A leader that cannot renew for a whole lease may have lost it: it stops relaying.
    if (this.#now() - this.#renewedAt > this.ttlMs) {
      void this.stop()
      return
    }
    this.command.eval(RENEW, 1, this.s.names.leader, this.token, this.ttlMs).then((renewed) => {
      if (renewed === 1) this.#renewedAt = this.#now()
      else void this.stop()
    }, noop)
  }

  #open(): void {
    if (this.#stopped) return
    const session = new RelaySession(this.s, () => {
      if (this.#session !== session || this.#stopped) return
      this.#session = undefined
      // A primary this process cannot reach: after a few sessions fail, let another process lead.
      if (!session.relayed && ++this.#failures >= 3) {
        void this.stop()
        return
      }
      if (session.relayed) this.#failures = 0
      this.#retry = setTimeout(() => this.#open(), Math.min(2000, 50 * 2 ** this.#failures))
      this.#retry.unref?.()
    })
    this.#session = session
    void session.start()
  }
}

/** One relay session: one LISTEN connection and one publishing connection, used until either fails. */
class RelaySession {
  readonly name = randomToken()
  /** Whether a heartbeat was published (the session worked). */
  relayed = false
  running = false
  #client: pg.Client | undefined
  #ask: SerialQuery | undefined
  #publisher: RelayRedisClient | undefined
  #timer: ReturnType<typeof setInterval> | undefined
  #ended = false
  #round: { readonly n: number; readonly at: number; readonly back: () => void } | undefined
  #rounds = 0
  readonly #fenceChannel: string
  readonly #now: () => number

  constructor(
    private readonly s: RelaySettings,
    private readonly onEnd: () => void,
  ) {
    this.#fenceChannel = `keyward_relay_${this.name}`
    this.#now = s.now ?? (() => performance.now())
  }

  async start(): Promise<void> {
    try {
      // Publishes only on this one connection, and never again once it is lost: a command lost
      // with a connection must never be followed by a heartbeat that claims what it carried.
      const publisher = await this.s.redis({
        enableOfflineQueue: false,
        autoResendUnfulfilledCommands: false,
        retryStrategy: () => null,
        maxRetriesPerRequest: 0,
      })
      this.#publisher = publisher
      publisher.on('error', noop)
      publisher.on('close', () => void this.end())
      await publisher.connect()
      if (this.#ended) return
      // Named, so that operators (and tests) can tell the relay's one connection on the primary.
      const client = new pg.Client({
        keepAlive: true,
        application_name: RELAY_APPLICATION,
        ...this.s.pgConfig,
      })
      this.#client = client
      this.#ask = serially(client)
      client.on('error', () => void this.end())
      client.on('end', () => void this.end())
      client.on('notification', (message) => this.#notified(message))
      await client.connect()
      await this.#ask(`LISTEN ${CHANGE_CHANNEL}; LISTEN ${this.#fenceChannel}`)
    } catch {
      await this.end()
      return
    }
    // Ended while it connected (its publisher was lost): the client made since is closed too.
    if (this.#ended) {
      await this.#client?.end().catch(noop)
      return
    }
    this.running = true
    this.#timer = setInterval(() => this.#next(), this.s.everyMs)
    this.#timer.unref?.()
    this.#next()
  }

  async end(): Promise<void> {
    if (this.#ended) return
    this.#ended = true
    this.running = false
    clearInterval(this.#timer)
    this.#round?.back()
    this.#publisher?.disconnect()
    await this.#client?.end().catch(noop)
    this.onEnd()
  }

  #notified(message: pg.Notification): void {
    if (this.#ended) return
    if (message.channel === this.#fenceChannel) {
      if (this.#round && String(this.#round.n) === message.payload) this.#round.back()
      return
    }
    if (message.channel !== CHANGE_CHANNEL || !message.payload || !this.s.mine(message.payload)) return
    // Relayed the moment it is received, before any heartbeat of a later fence.
    this.#publish(`c ${this.name} ${message.payload}`)
  }

  #publish(message: string): void {
    this.#publisher!.publish(this.s.names.channel, message).catch(() => void this.end())
  }

  #next(): void {
    if (this.#ended) return
    if (this.#round) {
      // A fence that does not come back in a whole lease: the connection is presumed dead.
      if (this.#now() - this.#round.at > leaseMs(this.s.everyMs)) void this.end()
      return
    }
    void this.#run()
  }

  async #run(): Promise<void> {
    const n = this.#rounds++
    let back!: () => void
    const fenced = new Promise<void>((resolve) => {
      back = resolve
    })
    this.#round = { n, at: this.#now(), back }
    try {
      const epoch = await this.#publisher!.incr(this.s.names.epoch)
      if (this.#ended) return
      // Sent after the INCR returned: committed, and queued, after it.
      await this.#ask!(FENCE, [this.#fenceChannel, String(n)])
      await fenced
      if (this.#ended) return
      this.#publish(`h ${this.name} ${epoch}`)
      this.relayed = true
      this.#round = undefined
    } catch {
      await this.end()
    }
  }
}
