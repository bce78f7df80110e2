import { useCallback, useState } from 'preact/hooks'
import type { CreatedKey, KeyCalls, KeyInfo, UsageRange } from '../../api'
import { IssuedKey } from '../../components/IssuedKey'
import { KeyActions } from '../../components/KeyActions'
import { IdentityFact } from '../../components/KeyIdentity'
import { explain } from '../../components/KeyList'
import { NotLoaded, useLoaded, usePageTitle } from '../../components/loaded'
import { Message } from '../../components/Message'
import { PolicyFacts } from '../../components/Policies'
import { When } from '../../components/States'
import { UsageChart } from '../../components/UsageChart'
import { keyStatus, when } from '../../format'
import { keyHref } from '../../routes'
import { KeyHistory } from './KeyHistory'

/**
 * One key's page: what it is and how it stands, what can be done to it, and its usage over time.
 * `back` is the list it belongs to; `limitMessage` says that its owner is at the limit of active keys.
 */
export function Key({
  calls,
  keyId,
  back,
  limitMessage,
  permissions,
  currentPrefix,
}: {
  calls: KeyCalls
  keyId: string
  back: { readonly href: string; readonly label: string }
  limitMessage: string
  permissions: readonly string[]
  currentPrefix?: string
}) {
  const load = useCallback(() => calls.get(keyId), [calls, keyId])
  const { value: key, setValue: setKey, failure, retry } = useLoaded<KeyInfo>(load)
  const [error, setError] = useState('')
  const [info, setInfo] = useState('')
  const [issued, setIssued] = useState<{ key: CreatedKey; note: string } | undefined>()

  const usage = useCallback((range: UsageRange) => calls.usage({ ...range, keyId }), [calls, keyId])

  usePageTitle(key ? (key.name ?? key.display) : 'Key')

  const run = async (work: () => Promise<void>) => {
    setError('')
    setInfo('')
    try {
      await work()
    } catch (caught) {
      setError(explain(caught, limitMessage))
    }
  }

  const backLink = (
    <p>
      <a href={back.href}>← {back.label}</a>
    </p>
  )
  if (key === undefined) {
    return (
      <main id="main" class="stack">
        {backLink}
        <h1>Key</h1>
        <NotLoaded
          what="the key"
          missing="There is no such key: it belongs to someone else, or the address is wrong."
          failure={failure}
          retry={retry}
        />
      </main>
    )
  }

  const status = keyStatus(key)
  return (
    <main id="main" class="stack">
      {backLink}
      <div class="key-head">
        <h1>
          {key.name ?? 'Unnamed key'} <span class="mono muted">{key.display}</span>
        </h1>
        <p>
          <span class={`status status-${status.tone}`}>{status.label}</span>
          {currentPrefix === key.key_prefix ? <span class="badge">this session</span> : null}
          {key.rotation_due ? <span class="badge badge-warn">rotation due</span> : null}
        </p>
      </div>
      <KeyActions
        keyInfo={key}
        calls={calls}
        permissions={permissions}
        run={run}
        onChanged={(updated, sentence) => {
          setKey(updated)
          setInfo(sentence)
        }}
        onRolled={(rolled, note) => {
          setIssued({ key: rolled, note })
          retry()
        }}
      />
      <Message kind="error">{error}</Message>
      <Message kind="info">{info}</Message>
      {issued ? (
        <IssuedKey issued={issued.key} note={issued.note} onDone={() => setIssued(undefined)}>
          <a href={keyHref(issued.key.id, calls.projectId)}>Open the new key's page</a>
        </IssuedKey>
      ) : null}
      <section class="stack" aria-labelledby="details-heading">
        <h2 id="details-heading">Details</h2>
        <dl class="facts">
          <dt>Key</dt>
          <dd class="mono">{key.display}</dd>
          <dt>Created</dt>
          <dd>
            <When value={key.created_at} /> <span class="muted">({when(key.created_at)})</span>
          </dd>
          <dt>Last used</dt>
          <dd>
            <When value={key.last_used_at} fallback="never" />
          </dd>
          <dt>Expires</dt>
          <dd>{key.expires_at ? <When value={key.expires_at} /> : 'never'}</dd>
          <dt>Rotation</dt>
          <dd>{key.rotation_due ? 'due: roll this key' : 'not due'}</dd>
          {'project_id' in key ? (
            <IdentityFact projectId={key.project_id} identityId={key.identity_id} />
          ) : null}
          <PolicyFacts keyInfo={key} />
          <dt>Id</dt>
          <dd class="mono">{key.id}</dd>
        </dl>
      </section>
      <UsageChart load={usage} what="this key" />
      <KeyHistory keyId={key.id} />
    </main>
  )
}
