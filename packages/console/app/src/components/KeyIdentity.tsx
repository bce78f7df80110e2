import { useEffect, useMemo, useState } from 'preact/hooks'
import { type Identity, identities, type KeyInfo } from '../api'
import { identitiesHref, identityHref } from '../routes'
import { Dialog, DialogButtons, DialogError, useDialogWork } from './Dialog'

/** The identity of an API key as a term of its page's facts: a link to it by its external id, or `none`. */
export function IdentityFact({
  projectId,
  identityId,
}: {
  projectId: string
  identityId: string | null | undefined
}) {
  const [identity, setIdentity] = useState<Identity | undefined>()
  useEffect(() => {
    let current = true
    setIdentity(undefined)
    if (identityId) {
      identities(projectId)
        .get(identityId)
        .then(
          (found) => current && setIdentity(found),
          () => {}, // the link names it by its id instead
        )
    }
    return () => {
      current = false
    }
  }, [projectId, identityId])
  return (
    <>
      <dt>Identity</dt>
      <dd class="mono">
        {identityId ? (
          <a href={identityHref(projectId, identityId)}>{identity?.external_id ?? identityId}</a>
        ) : (
          'none'
        )}
      </dd>
    </>
  )
}

/**
 * Puts an API key in one of its project's identities, found by its external id, or takes it out
 * of the one it is in. `onSave` gets the identity's id (`null` to leave), and the sentence that
 * says what happened; a refusal, or an external id that names no identity, stays in the dialog.
 */
export function KeyIdentityDialog({
  keyInfo,
  projectId,
  onClose,
  onSave,
}: {
  keyInfo: KeyInfo
  projectId: string
  onClose: () => void
  onSave: (identityId: string | null, sentence: string) => Promise<void>
}) {
  const calls = useMemo(() => identities(projectId), [projectId])
  const current = 'identity_id' in keyInfo ? keyInfo.identity_id : null
  const [externalId, setExternalId] = useState('')
  const { error, setError, busy, run: save } = useDialogWork()

  return (
    <Dialog title={`Identity of ${keyInfo.display}`} onClose={onClose}>
      <form
        class="stack"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          const wanted = externalId.trim()
          if (wanted === '') return setError('Give the external id of one of the project’s identities.')
          void save(async () => {
            const found = await calls.find(wanted)
            if (found === null) {
              setError(
                `The project has no identity “${wanted}”. Create it on the project’s Identities tab first.`,
              )
              return
            }
            await onSave(found.id, `${keyInfo.display} now belongs to the identity “${found.external_id}”.`)
          })
        }}
      >
        <p>
          The key's requests then count against the identity's rate limits and spend from its credit pool,
          besides its own. Every server process applies the change as it applies a revocation.
        </p>
        <label for="key-identity">External id of the identity</label>
        <input
          id="key-identity"
          maxLength={255}
          value={externalId}
          placeholder="e.g. customer_acme"
          autoComplete="off"
          onInput={(event) => {
            setExternalId(event.currentTarget.value)
            setError('') // a refusal was of the id typed before
          }}
          aria-describedby="key-identity-error"
        />
        <p class="hint">
          The project's identities are on <a href={identitiesHref(projectId)}>its Identities tab</a>.
        </p>
        <DialogError id="key-identity-error">{error}</DialogError>
        <DialogButtons onCancel={onClose}>
          <button type="submit" disabled={busy}>
            Set identity
          </button>
          {current ? (
            <button
              type="button"
              class="secondary"
              disabled={busy}
              onClick={() =>
                void save(() => onSave(null, `${keyInfo.display} no longer belongs to an identity.`))
              }
            >
              Remove from its identity
            </button>
          ) : null}
        </DialogButtons>
      </form>
    </Dialog>
  )
}
