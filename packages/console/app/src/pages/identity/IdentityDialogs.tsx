import { useEffect, useState } from 'preact/hooks'
import {
  ApiError,
  type Identity,
  type IdentityCalls,
  type KeyCount,
  messageOf,
  type UpdateIdentityBody,
} from '../../api'
import { Dialog, DialogButtons, DialogError, useDialogWork } from '../../components/Dialog'
import { MetadataField, metadataOf } from '../../components/Policies'
import { explainLimits, useRateLimitFields } from '../../components/RateLimits'

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`

/**
 * Edits an identity's rate limits and metadata; only what is edited is sent (`PATCH`), and an
 * emptied field clears it. A refusal (metadata that is not JSON, a limit the server refuses, named
 * by its row) stays in the dialog.
 */
export function EditIdentityDialog({
  identity,
  calls,
  onClose,
  onSaved,
}: {
  identity: Identity
  calls: IdentityCalls
  onClose: () => void
  onSaved: (updated: Identity, sentence: string) => void
}) {
  const limits = useRateLimitFields('edit-identity', identity.ratelimits)
  const initialMetadata = identity.metadata ? JSON.stringify(identity.metadata) : ''
  const [metadata, setMetadata] = useState(initialMetadata)
  const { error, setError, busy, run } = useDialogWork(explainLimits)

  const save = () =>
    run(async () => {
      const ratelimits = limits.read()
      if ('invalid' in ratelimits) return setError(ratelimits.invalid)
      const change: UpdateIdentityBody = {
        ...(JSON.stringify(ratelimits) === JSON.stringify(identity.ratelimits)
          ? {}
          : { ratelimits: ratelimits.length === 0 ? null : ratelimits }),
        ...(metadata === initialMetadata ? {} : { metadata: metadataOf(metadata) ?? null }),
      }
      const name = `“${identity.external_id}”`
      if (Object.keys(change).length === 0) onSaved(identity, `The identity ${name} is unchanged.`)
      else onSaved(await calls.update(identity.id, change), `Updated the identity ${name}.`)
    })

  return (
    <Dialog title={`Limits and metadata of “${identity.external_id}”`} onClose={onClose}>
      <form
        class="stack"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          void save()
        }}
      >
        <p>
          Every key of the identity counts against these limits; each server process applies a change as it
          applies a revocation. Remove every limit, or empty the metadata, to clear it.
        </p>
        {limits.fields}
        <MetadataField id="edit-identity-metadata" value={metadata} onInput={setMetadata} />
        <DialogError id="edit-identity-error">{error}</DialogError>
        <DialogButtons onCancel={onClose}>
          <button type="submit" disabled={busy}>
            Save
          </button>
        </DialogButtons>
      </form>
    </Dialog>
  )
}

/**
 * Deletes an identity once confirmed. One with keys is deleted only with them revoked ("Also revoke
 * its N keys"); without the box ticked the server refuses (409), which the dialog says in plain
 * words, counting the keys again. `onDeleted` gets the sentence that says what was done.
 */
export function DeleteIdentityDialog({
  identity,
  calls,
  onClose,
  onDeleted,
}: {
  identity: Identity
  calls: IdentityCalls
  onClose: () => void
  onDeleted: (sentence: string) => void
}) {
  const [count, setCount] = useState<KeyCount | 'unknown' | undefined>()
  const [counted, setCounted] = useState(0)
  const [revoke, setRevoke] = useState(false)
  const { error, setError, busy, run } = useDialogWork((failure) =>
    failure instanceof ApiError && failure.type === 'identity_has_keys'
      ? 'Keys still belong to this identity, and it is deleted only with them revoked: tick the box to revoke them with it, or first take each key out of it (“Identity…” on the key’s page).'
      : messageOf(failure),
  )
  useEffect(() => {
    let current = true
    void counted // counted again after a refusal: keys may have joined since
    calls.countKeys(identity.id).then(
      (found) => current && setCount(found),
      () => current && setCount('unknown'),
    )
    return () => {
      current = false
    }
  }, [calls, identity.id, counted])

  const hasKeys = count === 'unknown' || (count !== undefined && count.all > 0)
  const name = `“${identity.external_id}”`
  return (
    <Dialog title={`Delete ${name}`} onClose={onClose}>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault()
          void run(async () => {
            try {
              const deleted = await calls.delete(identity.id, revoke && hasKeys)
              const revoked = deleted.revoked_keys.length
              onDeleted(
                revoked === 0
                  ? `Deleted the identity ${name}.`
                  : `Deleted the identity ${name} and revoked its ${plural(revoked, 'key')}.`,
              )
            } catch (failure) {
              setCounted((n) => n + 1)
              throw failure
            }
          })
        }}
      >
        <p>
          Its keys no longer share its rate limits, credit pool and metadata, and its usage is no longer told
          as its own. This cannot be undone.
        </p>
        {count === undefined ? (
          <p role="status">Counting its keys…</p>
        ) : hasKeys ? (
          <>
            <label class="check">
              <input
                type="checkbox"
                checked={revoke}
                onChange={(event) => {
                  setRevoke(event.currentTarget.checked)
                  setError('') // a refusal was of the previous choice
                }}
              />
              {count === 'unknown' ? 'Also revoke its keys' : `Also revoke its ${plural(count.all, 'key')}`}
            </label>
            {count === 'unknown' ? null : (
              <p class="hint">
                {count.active === 0
                  ? 'None of them is active.'
                  : `${plural(count.active, 'active key')} ${count.active === 1 ? 'stops' : 'stop'} working at once here, and in every server process within the revocation bound.`}
              </p>
            )}
          </>
        ) : (
          <p>No key belongs to it.</p>
        )}
        <DialogError id="delete-identity-error">{error}</DialogError>
        <DialogButtons onCancel={onClose}>
          <button type="submit" class="danger" disabled={busy || count === undefined}>
            Delete identity
          </button>
        </DialogButtons>
      </form>
    </Dialog>
  )
}
