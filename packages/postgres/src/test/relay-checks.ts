// What the fault tests of fleets (the relay's, the beacon's) check after each acknowledged revocation.
import type { PgChangeFeed } from '../pg.js'

/**
 * The order of events in this process. A feed of the relay may miss a change when the relay's
 * leader changes, but it then resets: it counts as disconnected (its cache forgets everything and
 * is bypassed) until it is `connected` again. So it holds a revocation if it heard it, or if it
 * was last `connected` after the revocation's commit returned (the writer's own store reports the
 * change then): its cache then holds nothing read before the commit.
 */
let clock = 0
export interface Watched {
  readonly heard: Set<string>
  /** When the feed last reported `connected`. */
  lastConnected: number
}
export const watch = (feed: PgChangeFeed): Watched => {
  const watched: Watched = { heard: new Set(), lastConnected: -1 }
  feed.subscribe((event) => {
    if (event.type === 'changed') watched.heard.add(event.hash)
    if (event.type === 'connected') watched.lastConnected = ++clock
  })
  return watched
}
/** When each change was committed, as the writer's store reports it. */
export const commits = (feed: PgChangeFeed): Map<string, number> => {
  const committed = new Map<string, number>()
  feed.subscribe((event) => {
    if (event.type === 'changed' && !committed.has(event.hash)) committed.set(event.hash, ++clock)
  })
  return committed
}
/** Whether a feed that counts as fresh now would refuse the key of `hash` (from its cache too). */
export const holds = (feed: PgChangeFeed, watched: Watched, hash: string, committed: Map<string, number>) =>
  !feed.connected || watched.heard.has(hash) || watched.lastConnected > committed.get(hash)!
