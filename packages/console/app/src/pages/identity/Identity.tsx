import { useCallback, useMemo, useState } from 'preact/hooks'
import { type Identity, type IdentityCalls, identities, type Project, type UsageRange } from '../../api'
import { CreditsDialog, creditsText, LowAtDialog, lowAtText } from '../../components/Credits'
import { KeyTable } from '../../components/KeyList'
import { NotLoaded, useLoaded, usePageTitle } from '../../components/loaded'
import { Message } from '../../components/Message'
import { usePaged } from '../../components/paged'
import { LimitsFact } from '../../components/RateLimits'
import { ListStates, When } from '../../components/States'
import { UsageChart } from '../../components/UsageChart'
import { projectHref } from '../../routes'
import { explainIdentities } from '../identities/Identities'
import { DeleteIdentityDialog, EditIdentityDialog } from './IdentityDialogs'
import { IdentityHistory } from './IdentityHistory'

type Action = 'edit' | 'credits' | 'low' | 'delete' | undefined

/**
 * One identity's page: its external id, id, metadata, rate limits and credit pool; what can be
 * done to it (its limits and metadata changed, its deletion); its keys; the usage of its keys; and
 * the changes of the project's identities.
 */
export function IdentityPage({
  projectId,
  identityId,
  project,
}: {
  projectId: string
  identityId: string
  project: Project | undefined
}) {
  const calls = useMemo(() => identities(projectId), [projectId])
  const load = useCallback(() => calls.get(identityId), [calls, identityId])
  const { value: identity, setValue: setIdentity, failure, retry } = useLoaded<Identity>(load)
  const [action, setAction] = useState<Action>()
  const [info, setInfo] = useState('')
  const [deleted, setDeleted] = useState('')
  const usage = useCallback((range: UsageRange) => calls.usage(identityId, range), [calls, identityId])
  usePageTitle(identity ? identity.external_id : 'Identity')

  const back = (
    <p>
      <a href={projectHref(projectId, 'identities')}>
        ← Identities of {project ? `“${project.name}”` : 'the project'}
      </a>
    </p>
  )
  if (identity === undefined || deleted !== '') {
    return (
      <main id="main" class="stack">
        {back}
        <h1 class="mono">{identity?.external_id ?? 'Identity'}</h1>
        {deleted !== '' ? (
          <Message kind="info">{deleted}</Message>
        ) : (
          <NotLoaded
            what="the identity"
            missing="There is no such identity: it was deleted, it belongs to another project, or the address is wrong."
            failure={failure}
            retry={retry}
          />
        )}
      </main>
    )
  }

  const close = () => setAction(undefined)
  const changed = (updated: Identity, sentence: string) => {
    close()
    setIdentity(updated)
    setInfo(sentence)
  }
  const open = (kind: Exclude<Action, undefined>, text: string, tone = 'secondary') => (
    <button
      type="button"
      class={tone}
      onClick={() => {
        setInfo('')
        setAction(kind)
      }}
    >
      {text}
    </button>
  )
  return (
    <main id="main" class="stack">
      {back}
      <div class="key-head">
        <h1 class="mono">{identity.external_id}</h1>
        <p class="muted">An identity: its keys share its rate limits, credit pool and metadata.</p>
      </div>
      <div class="actions">
        {open('edit', 'Limits and metadata…')}
        {calls.changeCredits ? open('credits', 'Credits…') : null}
        {open('low', 'Low-credits alert…')}
        {open('delete', 'Delete…', 'danger')}
      </div>
      {action === 'edit' ? (
        <EditIdentityDialog identity={identity} calls={calls} onClose={close} onSaved={changed} />
      ) : null}
      {action === 'credits' && calls.changeCredits ? (
        <CreditsDialog
          title={`Credits of “${identity.external_id}”`}
          holder="identity"
          credits={identity}
          change={(body) => calls.changeCredits!(identity.id, body)}
          onClose={close}
          onChanged={(updated) =>
            changed(updated, `Credit pool of “${updated.external_id}”: ${creditsText(updated, 'none')}.`)
          }
        />
      ) : null}
      {action === 'low' ? (
        <LowAtDialog
          title={`Low-credits alert of “${identity.external_id}”`}
          credits={identity}
          save={(lowAt) => calls.update(identity.id, { credits_low_at: lowAt })}
          onClose={close}
          onSaved={(updated) =>
            changed(updated, `Low credits of “${updated.external_id}”: ${lowAtText(updated)}.`)
          }
        />
      ) : null}
      {action === 'delete' ? (
        <DeleteIdentityDialog identity={identity} calls={calls} onClose={close} onDeleted={setDeleted} />
      ) : null}
      <Message kind="info">{info}</Message>
      <section class="stack" aria-labelledby="details-heading">
        <h2 id="details-heading">Details</h2>
        <dl class="facts">
          <dt>External id</dt>
          <dd class="mono">{identity.external_id}</dd>
          <dt>Credit pool</dt>
          <dd class="mono">{creditsText(identity, 'none: its keys spend only their own credits')}</dd>
          <dt>Low credits</dt>
          <dd class="mono">{lowAtText(identity)}</dd>
          <LimitsFact limits={identity.ratelimits} />
          <dt>Roles</dt>
          <dd class="mono">{identity.roles?.length ? identity.roles.join(', ') : 'none'}</dd>
          <dt>Metadata</dt>
          <dd>
            {identity.metadata ? (
              <pre class="json">{JSON.stringify(identity.metadata, null, 2)}</pre>
            ) : (
              'none'
            )}
          </dd>
          <dt>Created</dt>
          <dd>
            <When value={identity.created_at} />
          </dd>
          <dt>Changed</dt>
          <dd>
            <When value={identity.updated_at} />
          </dd>
          <dt>Id</dt>
          <dd class="mono">{identity.id}</dd>
        </dl>
      </section>
      <IdentityKeys calls={calls} identityId={identity.id} />
      <UsageChart load={usage} what="this identity's keys" />
      <IdentityHistory projectId={projectId} identityId={identity.id} changedAt={identity.updated_at} />
    </main>
  )
}

/** The API keys of an identity, newest first, each a link to its page. */
function IdentityKeys({ calls, identityId }: { calls: IdentityCalls; identityId: string }) {
  const fetchPage = useCallback(
    (cursor: string | null) => calls.keys(identityId, cursor),
    [calls, identityId],
  )
  const paged = usePaged(fetchPage)
  return (
    <section class="stack" aria-labelledby="keys-heading">
      <h2 id="keys-heading">Keys</h2>
      <KeyTable caption="Keys of this identity" keys={paged.items} projectId={calls.projectId} />
      <ListStates
        paged={paged}
        what="its keys"
        message={explainIdentities}
        empty={
          <p>
            No key belongs to this identity yet. Open a key's page and choose “Identity…”, or create a key
            with its <code>identity_id</code> through the API.
          </p>
        }
      />
    </section>
  )
}
