import { useState } from 'preact/hooks'
import type { KeyCalls, KeyInfo, RolledKey } from '../api'
import { when } from '../format'
import { CreditsDialog, creditsText, LowAtDialog, lowAtText } from './Credits'
import { ExpiryDialog, PoliciesDialog, RollDialog } from './KeyDialogs'
import { KeyIdentityDialog } from './KeyIdentity'

type Action = 'roll' | 'expiry' | 'credits' | 'low' | 'policies' | 'identity' | undefined

/**
 * What can be done to one key: revoke or re-activate it, roll it, set its expiry, and for an API
 * key change its credits, low-credits threshold, access policies and identity, each of the last
 * six in a dialog. `run` runs a
 * change (its refusal shown by the page); the key as changed goes to `onChanged` with a sentence
 * that says what happened, a roll's new key to `onRolled`.
 */
export function KeyActions({
  keyInfo,
  calls,
  permissions,
  run,
  onChanged,
  onRolled,
}: {
  keyInfo: KeyInfo
  calls: KeyCalls
  permissions: readonly string[]
  run: (work: () => Promise<void>) => Promise<void>
  onChanged: (updated: KeyInfo, info: string) => void
  onRolled: (rolled: RolledKey, note: string) => void
}) {
  const [action, setAction] = useState<Action>()
  const key = keyInfo
  const close = () => setAction(undefined)
  const apiKey = calls.projectId !== undefined && 'project_id' in key
  // A dialog's change: the dialog closes once it is made.
  const finish = (work: () => Promise<void>) =>
    run(async () => {
      await work()
      close()
    })
  const open = (kind: Exclude<Action, undefined>, text: string) => (
    <button type="button" class="secondary" onClick={() => setAction(kind)}>
      {text}
    </button>
  )

  return (
    <div class="actions">
      {key.active ? (
        <button
          type="button"
          class="danger"
          onClick={() => run(async () => onChanged(await calls.revoke(key.id), `Revoked ${key.display}.`))}
        >
          Revoke
        </button>
      ) : (
        <button
          type="button"
          class="secondary"
          onClick={() =>
            run(async () => onChanged(await calls.activate(key.id), `Re-activated ${key.display}.`))
          }
        >
          Re-activate
        </button>
      )}
      {key.active ? open('roll', 'Roll…') : null}
      {key.active ? open('expiry', 'Expiry…') : null}
      {key.active && apiKey && calls.changeCredits ? open('credits', 'Credits…') : null}
      {key.active && apiKey && calls.updatePolicies ? open('low', 'Low-credits alert…') : null}
      {key.active && apiKey && calls.updatePolicies ? open('policies', 'Policies…') : null}
      {key.active && apiKey && calls.setIdentity ? open('identity', 'Identity…') : null}
      {action === 'roll' ? (
        <RollDialog
          keyInfo={key}
          onClose={close}
          onRoll={(grace) =>
            finish(async () => {
              const rolled = await calls.roll(key.id, grace)
              const until = rolled.previous_key.expires_at
              onRolled(
                rolled,
                until
                  ? `The old key ${key.display} keeps working until ${when(until)}.`
                  : `The old key ${key.display} has stopped working.`,
              )
            })
          }
        />
      ) : null}
      {action === 'expiry' ? (
        <ExpiryDialog
          keyInfo={key}
          onClose={close}
          onSet={(expiresAt) =>
            finish(async () =>
              onChanged(
                await calls.setExpiry(key.id, { expires_at: expiresAt }),
                expiresAt === null
                  ? `${key.display} no longer expires.`
                  : `${key.display} expires ${when(expiresAt)}.`,
              ),
            )
          }
        />
      ) : null}
      {action === 'credits' && calls.changeCredits ? (
        <CreditsDialog
          title={`Credits of ${key.display}`}
          credits={key}
          change={(body) => calls.changeCredits!(key.id, body)}
          onClose={close}
          onChanged={(updated) => {
            close()
            onChanged(updated, `Credits of ${updated.display}: ${creditsText(updated)}.`)
          }}
        />
      ) : null}
      {action === 'low' && calls.updatePolicies ? (
        <LowAtDialog
          title={`Low-credits alert of ${key.display}`}
          credits={key}
          save={(lowAt) => calls.updatePolicies!(key.id, { credits_low_at: lowAt })}
          onClose={close}
          onSaved={(updated) => {
            close()
            onChanged(updated, `Low credits of ${updated.display}: ${lowAtText(updated)}.`)
          }}
        />
      ) : null}
      {action === 'policies' && calls.updatePolicies ? (
        <PoliciesDialog
          keyInfo={key}
          declared={permissions}
          onClose={close}
          onSave={async (change) => {
            if (Object.keys(change).length === 0) {
              onChanged(key, `The policies of ${key.display} are unchanged.`)
            } else {
              onChanged(
                await calls.updatePolicies!(key.id, change),
                `Updated the policies of ${key.display}.`,
              )
            }
            close()
          }}
        />
      ) : null}
      {action === 'identity' && calls.setIdentity && calls.projectId !== undefined ? (
        <KeyIdentityDialog
          keyInfo={key}
          projectId={calls.projectId}
          onClose={close}
          onSave={async (identityId, sentence) => {
            onChanged(await calls.setIdentity!(key.id, identityId), sentence)
            close()
          }}
        />
      ) : null}
    </div>
  )
}
