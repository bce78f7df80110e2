import type { CreditLease, KeyStore } from '../store/types.js'
import { inSpan, SPAN_INTERNAL } from '../telemetry/spans.js'
import type { TelemetrySpan, TelemetryTracer } from '../telemetry/types.js'

type Lease = NonNullable<KeyStore['leaseCredits']>

/** The name of the span of a lease of credits. */
export const LEASE_SPAN = 'keyward.credits.lease'

/**
 * @internal The spender's leases, each in a span (`keyward.credits.lease`): the key's id and
 * prefix (or, for an identity's pool, the identity's id), the credits asked for and needed, and
 * those granted and left (none left is `0`, an unlimited key has no `remaining`). Without a
 * tracer, `lease` itself.
 */
export function leaseSpans(
  lease: Lease,
  tracer: TelemetryTracer | undefined,
  prefixOf: (id: string) => string | undefined,
  holder: 'key' | 'identity' = 'key',
): Lease {
  if (!tracer) return lease
  const granted = (span: TelemetrySpan, result: CreditLease | null) => {
    span.setAttribute('keyward.credits.granted', result?.granted ?? 0)
    if (result === null) span.setAttribute('keyward.credits.remaining', 0)
    else if (result.remaining !== null) span.setAttribute('keyward.credits.remaining', result.remaining)
  }
  return (id, want, need, now) => {
    const prefix = prefixOf(id)
    const attributes = {
      [holder === 'key' ? 'keyward.key.id' : 'keyward.identity.id']: id,
      ...(prefix === undefined ? {} : { 'keyward.key.prefix': prefix }),
      'keyward.credits.requested': want,
      'keyward.credits.needed': need,
    }
    return inSpan(
      tracer,
      LEASE_SPAN,
      { kind: SPAN_INTERNAL, attributes },
      () => lease(id, want, need, now),
      granted,
    )
  }
}
