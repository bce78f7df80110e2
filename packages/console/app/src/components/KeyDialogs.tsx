import { useState } from 'preact/hooks'
import type { KeyInfo, PolicyChange } from '../api'
import { graceChoices, instantOf, when } from '../format'
import { Dialog, DialogButtons, DialogError, useDialogWork } from './Dialog'
import { Choice } from './Fields'
import { usePolicyFields, useRoleNames } from './Policies'
import { explainLimits } from './RateLimits'

const GRACE_CHOICES = graceChoices('the old key stops now')

/**
 * Edits an API key's IP allowlist, permissions, roles, metadata and rate limits; only the fields edited
 * are sent.
 * A refusal (metadata that is not JSON, the server's) shows in the dialog, which stays open.
 */
export function PoliciesDialog({
  keyInfo,
  declared,
  onClose,
  onSave,
}: {
  keyInfo: KeyInfo
  declared: readonly string[]
  onClose: () => void
  onSave: (change: PolicyChange) => Promise<void>
}) {
  const roleNames = useRoleNames('project_id' in keyInfo ? keyInfo.project_id : undefined)
  const fields = usePolicyFields(declared, 'edit-key', keyInfo, roleNames)
  const { error, busy, run } = useDialogWork(explainLimits)
  return (
    <Dialog title={`Policies of ${keyInfo.display}`} onClose={onClose}>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault()
          void run(() => onSave(fields.changed()))
        }}
      >
        <p>
          Every server process applies a narrower list or fewer permissions as it applies a revocation. Clear
          a field to remove its policy.
        </p>
        {fields.inputs}
        <DialogError id="policies-error">{error}</DialogError>
        <DialogButtons onCancel={onClose}>
          <button type="submit" disabled={busy}>
            Save policies
          </button>
        </DialogButtons>
      </form>
    </Dialog>
  )
}

export function RollDialog({
  keyInfo,
  onClose,
  onRoll,
}: {
  keyInfo: KeyInfo
  onClose: () => void
  onRoll: (grace: number) => void
}) {
  const [grace, setGrace] = useState(86_400)
  return (
    <Dialog title={`Roll ${keyInfo.display}`} onClose={onClose}>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault()
          onRoll(grace)
        }}
      >
        <p>
          A new key replaces this one, with the same name. The old key keeps working for the grace period you
          choose.
        </p>
        <label for="roll-grace">Grace period</label>
        <Choice
          id="roll-grace"
          value={String(grace)}
          choices={GRACE_CHOICES}
          onChange={(seconds) => setGrace(Number(seconds))}
        />
        <DialogButtons onCancel={onClose}>
          <button type="submit">Roll key</button>
        </DialogButtons>
      </form>
    </Dialog>
  )
}

export function ExpiryDialog({
  keyInfo,
  onClose,
  onSet,
}: {
  keyInfo: KeyInfo
  onClose: () => void
  onSet: (expiresAt: string | null) => void
}) {
  const [local, setLocal] = useState('')
  const [invalid, setInvalid] = useState('')
  return (
    <Dialog title={`Expiry of ${keyInfo.display}`} onClose={onClose}>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault()
          const instant = instantOf(local)
          if (instant === null) setInvalid('Choose a date and time, or “Never expires”.')
          else onSet(instant)
        }}
      >
        <p>Now: {when(keyInfo.expires_at, 'never expires')}.</p>
        <label for="expiry-at">Expires at (your time zone)</label>
        <input
          id="expiry-at"
          type="datetime-local"
          value={local}
          onInput={(event) => setLocal(event.currentTarget.value)}
          aria-describedby="expiry-error"
        />
        <p id="expiry-error" class="field-error">
          {invalid}
        </p>
        <DialogButtons onCancel={onClose}>
          <button type="submit">Set expiry</button>
          <button type="button" class="secondary" onClick={() => onSet(null)}>
            Never expires
          </button>
        </DialogButtons>
      </form>
    </Dialog>
  )
}
