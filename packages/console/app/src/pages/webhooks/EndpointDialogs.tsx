import { useState } from 'preact/hooks'
import { type WebhookEndpoint, type WebhookEndpointWithSecret, webhooks } from '../../api'
import { Dialog, DialogButtons, DialogError, useDialogWork } from '../../components/Dialog'
import { Choice } from '../../components/Fields'
import { ShownOnce } from '../../components/IssuedKey'
import { graceChoices } from '../../format'
import { useEndpointFields } from './EndpointFields'

/** A signing secret shown once, as the API answered it (a creation, a roll). */
export interface ShownSecret {
  readonly endpoint: WebhookEndpointWithSecret
  readonly title: string
  readonly note?: string
}

/**
 * An endpoint's signing secret, in full, this once: a copy button and a warning; dismissed
 * ("I have stored it", Escape), nothing keeps it.
 */
export function SecretDialog({ shown, onDone }: { shown: ShownSecret; onDone: () => void }) {
  return (
    <Dialog title={shown.title} onClose={onDone}>
      <div class="stack">
        <ShownOnce
          id="webhook-secret"
          label="The signing secret"
          secret={shown.endpoint.secret}
          warning="Copy this signing secret now: it is shown once and can never be shown again. Your receiver verifies each delivery's signature with it."
          done="I have stored it"
          onDone={onDone}
        >
          {shown.note ? <p>{shown.note}</p> : null}
        </ShownOnce>
      </div>
    </Dialog>
  )
}

/** The fields of an endpoint in a dialog, sent by `save`; a refusal stays in the dialog. */
function EndpointDialog({
  idPrefix,
  title,
  start,
  action,
  onClose,
  save,
}: {
  idPrefix: string
  title: string
  start?: WebhookEndpoint
  action: string
  onClose: () => void
  save: (fields: ReturnType<typeof useEndpointFields>) => Promise<void>
}) {
  const fields = useEndpointFields(idPrefix, start)
  const { error, setError, busy, run } = useDialogWork()
  return (
    <Dialog title={title} onClose={onClose}>
      <form
        class="stack"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          void run(async () => {
            if (fields.body().url === '') return setError('URL: give the address deliveries go to.')
            await save(fields)
          })
        }}
      >
        {fields.inputs}
        <DialogError id={`${idPrefix}-error`}>{error}</DialogError>
        <DialogButtons onCancel={onClose}>
          <button type="submit" disabled={busy}>
            {action}
          </button>
        </DialogButtons>
      </form>
    </Dialog>
  )
}

/** Registers an endpoint; its secret goes to `onCreated`, to be shown once. */
export function CreateEndpointDialog({
  onClose,
  onCreated,
}: {
  onClose: () => void
  onCreated: (created: WebhookEndpointWithSecret) => void
}) {
  return (
    <EndpointDialog
      idPrefix="new-endpoint"
      title="Add a webhook endpoint"
      action="Add endpoint"
      onClose={onClose}
      save={async (fields) => onCreated(await webhooks.create(fields.body()))}
    />
  )
}

/** Edits an endpoint's URL, description and filters; only what is edited is sent (`PATCH`). */
export function EditEndpointDialog({
  endpoint,
  onClose,
  onSaved,
}: {
  endpoint: WebhookEndpoint
  onClose: () => void
  onSaved: (endpoint: WebhookEndpoint, changed: boolean) => void
}) {
  return (
    <EndpointDialog
      idPrefix="edit-endpoint"
      title="Edit the webhook endpoint"
      start={endpoint}
      action="Save endpoint"
      onClose={onClose}
      save={async (fields) => {
        const change = fields.change()
        if (Object.keys(change).length === 0) return onSaved(endpoint, false)
        onSaved(await webhooks.update(endpoint.id, change), true)
      }}
    />
  )
}

/** Asks before an endpoint is deleted, with its pending deliveries. */
export function DeleteEndpointDialog({
  endpoint,
  onClose,
  onDeleted,
}: {
  endpoint: WebhookEndpoint
  onClose: () => void
  onDeleted: () => void
}) {
  const { error, busy, run } = useDialogWork()
  return (
    <Dialog title="Delete the webhook endpoint" onClose={onClose}>
      <div class="stack">
        <p>
          <span class="mono">{endpoint.url}</span> gets no more events, and its pending deliveries are
          dropped.
        </p>
        <DialogError id="delete-endpoint-error">{error}</DialogError>
        <DialogButtons onCancel={onClose}>
          <button
            type="button"
            class="danger"
            disabled={busy}
            onClick={() =>
              void run(async () => {
                await webhooks.delete(endpoint.id)
                onDeleted()
              })
            }
          >
            Delete endpoint
          </button>
        </DialogButtons>
      </div>
    </Dialog>
  )
}

// A roll's grace periods: the API allows up to 7 days.
const GRACE_CHOICES = graceChoices('the previous secret stops signing now', 7 * 86_400)

/** Rolls an endpoint's signing secret, with a grace period in which the previous one signs too. */
export function RollSecretDialog({
  endpoint,
  onClose,
  onRolled,
}: {
  endpoint: WebhookEndpoint
  onClose: () => void
  onRolled: (rolled: WebhookEndpointWithSecret) => void
}) {
  const [grace, setGrace] = useState(86_400)
  const { error, busy, run } = useDialogWork()
  return (
    <Dialog title="Roll the signing secret" onClose={onClose}>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault()
          void run(async () => onRolled(await webhooks.rollSecret(endpoint.id, grace)))
        }}
      >
        <p>
          A new secret signs every delivery. During the grace period the previous secret signs them too (two
          signatures), so a receiver verifies with either while you replace it.
        </p>
        <label for="roll-secret-grace">Grace period</label>
        <Choice
          id="roll-secret-grace"
          value={String(grace)}
          choices={GRACE_CHOICES}
          onChange={(seconds) => setGrace(Number(seconds))}
        />
        <DialogError id="roll-secret-error">{error}</DialogError>
        <DialogButtons onCancel={onClose}>
          <button type="submit" disabled={busy}>
            Roll secret
          </button>
        </DialogButtons>
      </form>
    </Dialog>
  )
}
