// Waiting in tests that watch feeds, leaders and fleets: a condition polled until it holds.

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `check` every 25 ms until it holds; fails naming `what` after `timeoutMs`. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`)
    await sleep(25)
  }
}

/**
 * Revokes `count` keys with `revoke` (which checks each acknowledgement and returns the share of
 * the fleet fresh at each), then one more at a time, `extra` more at most, until one was
 * acknowledged with more than `share` of the fleet fresh: on a loaded machine feeds are late now
 * and then, but not for good. Returns every share.
 */
export async function revokeUntilFresh(
  revoke: (count: number) => Promise<number[]>,
  count: number,
  share = 0.9,
  extra = 40,
): Promise<number[]> {
  const shares = await revoke(count)
  while (Math.max(...shares) <= share && shares.length < count + extra) shares.push(...(await revoke(1)))
  if (Math.max(...shares) <= share) {
    throw new Error(
      `No revocation of ${shares.length} was acknowledged with more than ${share * 100} % of the fleet fresh (at most ${Math.max(...shares)}).`,
    )
  }
  return shares
}
