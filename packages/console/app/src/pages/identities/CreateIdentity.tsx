import { useState } from 'preact/hooks'
import { ApiError, type CreateIdentityBody, type Identity, type IdentityCalls } from '../../api'
import { WholeNumber } from '../../components/Fields'
import { Message } from '../../components/Message'
import { MetadataField, metadataOf } from '../../components/Policies'
import { explainLimits, useRateLimitFields } from '../../components/RateLimits'
import { numberOf, useRefillFields } from '../../components/Refill'

/**
 * The creation of an identity: its external id, and optionally its metadata, rate limits and
 * credit pool (credits, and how they refill). `onCreated` gets the new identity; a refusal is
 * shown under the form, which keeps what was typed.
 */
export function CreateIdentity({
  calls,
  onCreated,
}: {
  calls: IdentityCalls
  onCreated: (identity: Identity) => void
}) {
  const [externalId, setExternalId] = useState('')
  const [metadata, setMetadata] = useState('')
  const [remaining, setRemaining] = useState('')
  const limits = useRateLimitFields('new-identity')
  const refill = useRefillFields('new-identity', false)
  const [error, setError] = useState('')

  // The body, or what to fix in words.
  const bodyOf = (): CreateIdentityBody | string => {
    if (externalId.trim() === '') return 'External id: give your id for this customer, e.g. customer_acme.'
    const ratelimits = limits.read()
    if ('invalid' in ratelimits) return ratelimits.invalid
    const rule = refill.read()
    if (rule != null && 'invalid' in rule) return rule.invalid
    const pool = numberOf(remaining)
    if (pool === null && remaining.trim() !== '') return 'Credits: give a whole number of credits.'
    if (pool === null && rule) return 'A refill needs a credit pool: give its credits too.'
    const parsed = metadataOf(metadata)
    return {
      external_id: externalId.trim(),
      ...(parsed === undefined ? {} : { metadata: parsed }),
      ...(ratelimits.length === 0 ? {} : { ratelimits }),
      ...(pool === null ? {} : { remaining: pool, ...(rule ? { refill: rule } : {}) }),
    }
  }

  const create = async (event: Event) => {
    event.preventDefault()
    setError('')
    try {
      const body = bodyOf()
      if (typeof body === 'string') return setError(body)
      const created = await calls.create(body)
      setExternalId('')
      setMetadata('')
      setRemaining('')
      limits.clear()
      refill.clear()
      onCreated(created)
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.type === 'identity_exists'
          ? `The project has an identity “${externalId.trim()}” already: find it by its external id below.`
          : explainLimits(failure),
      )
    }
  }

  return (
    <>
      <form class="inline-form" onSubmit={create} noValidate>
        <label for="new-identity-external-id">External id of the new identity</label>
        <input
          id="new-identity-external-id"
          maxLength={255}
          required
          value={externalId}
          onInput={(event) => setExternalId(event.currentTarget.value)}
          placeholder="e.g. customer_acme"
          autoComplete="off"
        />
        <button type="submit">Create identity</button>
        <details class="policies">
          <summary>Metadata, rate limits and credits (optional)</summary>
          <div class="stack">
            <MetadataField id="new-identity-metadata" value={metadata} onInput={setMetadata} />
            {limits.fields}
            <fieldset class="stack">
              <legend>Credit pool</legend>
              <p class="hint">Every key of the identity spends from it, besides any credits of its own.</p>
              <label for="new-identity-remaining">Credits (empty: no pool)</label>
              <WholeNumber id="new-identity-remaining" min={0} value={remaining} onInput={setRemaining} />
              {refill.fields}
            </fieldset>
          </div>
        </details>
      </form>
      <Message kind="error">{error}</Message>
    </>
  )
}
