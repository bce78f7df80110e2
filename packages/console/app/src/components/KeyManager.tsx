import { useCallback, useState } from 'preact/hooks'
import { ApiError, type CreatedKey, type KeyCalls, type KeyInfo, messageOf, type PolicyChange } from '../api'
import { keyStatus, when } from '../format'
import { CreditsDialog, creditsText } from './Credits'
import { Dialog, DialogButtons, DialogError } from './Dialog'
import { IssuedKey } from './IssuedKey'
import { Message } from './Message'
import { PolicyCell, usePolicyFields } from './Policies'
import { usePaged } from './paged'

const GRACE_CHOICES: readonly { seconds: number; label: string }[] = [
  { seconds: 0, label: 'None: the old key stops now' },
  { seconds: 3_600, label: '1 hour' },
  { seconds: 86_400, label: '24 hours' },
  { seconds: 7 * 86_400, label: '7 days' },
  { seconds: 30 * 86_400, label: '30 days' },
]

type Action = { kind: 'roll' | 'expiry' | 'credits' | 'policies'; key: KeyInfo } | undefined

/** What a refusal means to the reader: the server's message, or a plainer one for known cases. */
function explain(error: unknown, limitMessage: string): string {
  return error instanceof ApiError && error.type === 'limit_exceeded' ? limitMessage : messageOf(error)
}

/** An offset-bearing instant from a `datetime-local` value, read in the reader's time zone. */
function instantOf(local: string): string | null {
  const time = new Date(local)
  return Number.isNaN(time.getTime()) ? null : time.toISOString()
}

/**
 * The keys of one owner: a paged table, creation with the new key shown once, and revoke,
 * re-activate, roll and expiry on each key; credits (with `calls.changeCredits`) and access policies
 * (with `calls.updatePolicies`) on each API key.
 */
export function KeyManager({
  calls,
  noun,
  limitMessage,
  currentPrefix,
  policies = false,
  permissions = [],
}: {
  calls: KeyCalls
  noun: string
  limitMessage: string
  currentPrefix?: string
  /** Whether keys have access policies (API keys): set at creation, shown in the table, edited. */
  policies?: boolean
  /** The permission names the host declares, which the policy fields suggest. */
  permissions?: readonly string[]
}) {
  const policyFields = usePolicyFields(permissions)
  const [error, setError] = useState('')
  const [info, setInfo] = useState('')
  const [issued, setIssued] = useState<{ key: CreatedKey; note?: string } | undefined>()
  const [action, setAction] = useState<Action>()
  const [name, setName] = useState('')
  const failed = useCallback((failure: unknown) => setError(explain(failure, limitMessage)), [limitMessage])
  const { items: keys, setItems: setKeys, next, loading, reload, more } = usePaged(calls.list, failed)

  const replace = (updated: KeyInfo) =>
    setKeys((shown) => shown.map((key) => (key.id === updated.id ? updated : key)))

  const run = async (work: () => Promise<void>) => {
    setError('')
    setInfo('')
    try {
      await work()
    } catch (failure) {
      failed(failure)
    }
  }
  // A dialog's action: the dialog closes once it is done.
  const finish = (work: (key: KeyInfo) => Promise<void>) =>
    run(async () => {
      const key = action!.key
      await work(key)
      setAction(undefined)
    })

  const create = (event: Event) => {
    event.preventDefault()
    void run(async () => {
      const created = await calls.create(name.trim(), undefined, policies ? policyFields.read() : undefined)
      setName('')
      policyFields.clear()
      setIssued({ key: created })
      await reload()
    })
  }

  return (
    <div class="stack">
      <form class="inline-form" onSubmit={create}>
        <label for="new-key-name">Name of the new {noun}</label>
        <input
          id="new-key-name"
          maxLength={100}
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
          placeholder="e.g. production"
        />
        <button type="submit">Create {noun}</button>
        {policies ? policyFields.fields : null}
      </form>
      <Message kind="error">{error}</Message>
      <Message kind="info">{info}</Message>
      {issued ? (
        <IssuedKey issued={issued.key} note={issued.note} onDone={() => setIssued(undefined)} />
      ) : null}
      <div class="table-wrap">
        <table class="keys">
          <caption class="visually-hidden">{noun}s</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">Rotation</th>
              {policies ? <th scope="col">Policies</th> : null}
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => {
              const status = keyStatus(key)
              const label = key.name ?? key.display
              return (
                <tr key={key.id} data-key-prefix={key.key_prefix}>
                  <td data-label="Name">
                    {key.name ?? <em>unnamed</em>}
                    {currentPrefix === key.key_prefix ? <span class="badge">this session</span> : null}
                  </td>
                  <td data-label="Key" class="mono">
                    {key.display}
                  </td>
                  <td data-label="Status">
                    <span class={`status status-${status.tone}`}>{status.label}</span>
                  </td>
                  <td data-label="Created">{when(key.created_at)}</td>
                  <td data-label="Last used">{when(key.last_used_at, 'never')}</td>
                  <td data-label="Expires">{when(key.expires_at, 'never')}</td>
                  <td data-label="Rotation">
                    {key.rotation_due ? <span class="badge badge-warn">due</span> : 'not due'}
                  </td>
                  {policies ? <PolicyCell keyInfo={key} /> : null}
                  <td data-label="Actions">
                    <div class="actions">
                      {key.active ? (
                        <button
                          type="button"
                          class="danger"
                          aria-label={`Revoke ${label}`}
                          onClick={() =>
                            run(async () => {
                              replace(await calls.revoke(key.id))
                              setInfo(`Revoked ${key.display}.`)
                            })
                          }
                        >
                          Revoke
                        </button>
                      ) : (
                        <button
                          type="button"
                          class="secondary"
                          aria-label={`Re-activate ${label}`}
                          onClick={() =>
                            run(async () => {
                              replace(await calls.activate(key.id))
                              setInfo(`Re-activated ${key.display}.`)
                            })
                          }
                        >
                          Re-activate
                        </button>
                      )}
                      {key.active ? (
                        <button
                          type="button"
                          class="secondary"
                          aria-label={`Roll ${label}`}
                          onClick={() => setAction({ kind: 'roll', key })}
                        >
                          Roll…
                        </button>
                      ) : null}
                      {key.active ? (
                        <button
                          type="button"
                          class="secondary"
                          aria-label={`Set the expiry of ${label}`}
                          onClick={() => setAction({ kind: 'expiry', key })}
                        >
                          Expiry…
                        </button>
                      ) : null}
                      {key.active && calls.changeCredits && 'project_id' in key ? (
                        <button
                          type="button"
                          class="secondary"
                          aria-label={`Change the credits of ${label}`}
                          onClick={() => setAction({ kind: 'credits', key })}
                        >
                          Credits…
                        </button>
                      ) : null}
                      {key.active && policies && calls.updatePolicies ? (
                        <button
                          type="button"
                          class="secondary"
                          aria-label={`Edit the policies of ${label}`}
                          onClick={() => setAction({ kind: 'policies', key })}
                        >
                          Policies…
                        </button>
                      ) : null}
                    </div>
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
      {loading ? <p role="status">Loading…</p> : null}
      {!loading && keys.length === 0 && error === '' ? <p>No {noun}s yet.</p> : null}
      {next !== null && !loading ? (
        <button type="button" class="secondary" onClick={more}>
          Show more
        </button>
      ) : null}
      {action?.kind === 'roll' ? (
        <RollDialog
          keyInfo={action.key}
          onClose={() => setAction(undefined)}
          onRoll={(grace) =>
            finish(async (key) => {
              const rolled = await calls.roll(key.id, grace)
              const until = rolled.previous_key.expires_at
              const note = until
                ? `The old key ${key.display} keeps working until ${when(until)}.`
                : `The old key ${key.display} has stopped working.`
              setIssued({ key: rolled, note })
              await reload()
            })
          }
        />
      ) : null}
      {action?.kind === 'expiry' ? (
        <ExpiryDialog
          keyInfo={action.key}
          onClose={() => setAction(undefined)}
          onSet={(expiresAt) =>
            finish(async (key) => {
              replace(await calls.setExpiry(key.id, { expires_at: expiresAt }))
              setInfo(
                expiresAt === null
                  ? `${key.display} no longer expires.`
                  : `${key.display} expires ${when(expiresAt)}.`,
              )
            })
          }
        />
      ) : null}
      {action?.kind === 'credits' && calls.changeCredits ? (
        <CreditsDialog
          keyInfo={action.key}
          change={(body) => calls.changeCredits!(action.key.id, body)}
          onClose={() => setAction(undefined)}
          onChanged={(updated) => {
            replace(updated)
            setAction(undefined)
            setInfo(`Credits of ${updated.display}: ${creditsText(updated)}.`)
          }}
        />
      ) : null}
      {action?.kind === 'policies' && calls.updatePolicies ? (
        <PoliciesDialog
          keyInfo={action.key}
          declared={permissions}
          onClose={() => setAction(undefined)}
          onSave={async (change) => {
            const key = action.key
            setError('')
            setInfo('')
            if (Object.keys(change).length === 0) {
              setInfo(`The policies of ${key.display} are unchanged.`)
            } else {
              replace(await calls.updatePolicies!(key.id, change))
              setInfo(`Updated the policies of ${key.display}.`)
            }
            setAction(undefined)
          }}
        />
      ) : null}
    </div>
  )
}

/**
 * Edits an API key's IP allowlist, permissions and metadata; only the fields edited are sent.
 * A refusal (metadata that is not JSON, the server's) shows in the dialog, which stays open.
 */
function PoliciesDialog({
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
  const fields = usePolicyFields(declared, 'edit-key', keyInfo)
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  return (
    <Dialog title={`Policies of ${keyInfo.display}`} onClose={onClose}>
      <form
        class="stack"
        onSubmit={async (event) => {
          event.preventDefault()
          setError('')
          setBusy(true)
          try {
            await onSave(fields.changed())
          } catch (failure) {
            setError(messageOf(failure))
          } finally {
            setBusy(false)
          }
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

function RollDialog({
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
        <select
          id="roll-grace"
          value={String(grace)}
          onChange={(event) => setGrace(Number(event.currentTarget.value))}
        >
          {GRACE_CHOICES.map((choice) => (
            <option key={choice.seconds} value={String(choice.seconds)}>
              {choice.label}
            </option>
          ))}
        </select>
        <DialogButtons onCancel={onClose}>
          <button type="submit">Roll key</button>
        </DialogButtons>
      </form>
    </Dialog>
  )
}

function ExpiryDialog({
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
