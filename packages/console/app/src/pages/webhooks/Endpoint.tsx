import { useCallback, useMemo, useState } from 'preact/hooks'
import { type WebhookEndpoint, webhooks } from '../../api'
import { useDialogWork } from '../../components/Dialog'
import { NotLoaded, useLoaded, usePageTitle } from '../../components/loaded'
import { Message } from '../../components/Message'
import { When } from '../../components/States'
import { when } from '../../format'
import { Deliveries } from './Deliveries'
import {
  DeleteEndpointDialog,
  EditEndpointDialog,
  RollSecretDialog,
  SecretDialog,
  type ShownSecret,
} from './EndpointDialogs'
import { useProjects } from './EndpointFields'
import { endpointStatus, projectsText } from './webhook-words'

type Open = 'edit' | 'roll' | 'delete' | undefined

/**
 * One webhook endpoint's page: what it is and how it stands (why, when it fails or was
 * disabled), what can be done to it (edit, enable, roll its secret, send a test event, delete),
 * and its delivery log.
 */
export function WebhookEndpointPage({ endpointId }: { endpointId: string }) {
  const load = useCallback(() => webhooks.get(endpointId), [endpointId])
  const { value: endpoint, setValue: setEndpoint, failure, retry } = useLoaded<WebhookEndpoint>(load)
  const projects = useProjects()
  const names = useMemo(() => new Map(projects.map((project) => [project.id, project.name])), [projects])
  const [open, setOpen] = useState<Open>()
  const [secret, setSecret] = useState<ShownSecret | undefined>()
  const { error, run: work } = useDialogWork()
  const [info, setInfo] = useState('')
  const [sent, setSent] = useState(0)
  usePageTitle(endpoint?.description ?? 'Webhook endpoint')

  const backLink = (
    <p>
      <a href="#/webhooks">← Webhooks</a>
    </p>
  )
  if (endpoint === undefined) {
    return (
      <main id="main" class="stack">
        {backLink}
        <h1>Webhook endpoint</h1>
        <NotLoaded
          what="the endpoint"
          missing="There is no such endpoint: it belongs to someone else, was deleted, or the address is wrong."
          failure={failure}
          retry={retry}
        />
      </main>
    )
  }

  // A change of the page's buttons: its refusal shown on the page, in the server's words.
  const run = (change: () => Promise<void>) => {
    setInfo('')
    return work(change)
  }
  const changed = (updated: WebhookEndpoint, sentence: string) => {
    setOpen(undefined)
    setEndpoint(updated)
    setInfo(sentence)
  }
  const status = endpointStatus(endpoint)
  const button = (kind: Exclude<Open, undefined>, text: string, tone = 'secondary') => (
    <button type="button" class={tone} onClick={() => setOpen(kind)}>
      {text}
    </button>
  )

  return (
    <main id="main" class="stack">
      {backLink}
      <div class="key-head">
        <h1>{endpoint.description ?? 'Webhook endpoint'}</h1>
        <p>
          <span class={`status status-${status.tone}`}>{status.label}</span>{' '}
          <span class="muted">{status.why}</span>
        </p>
      </div>
      <div class="actions">
        {button('edit', 'Edit…')}
        {endpoint.disabled_at ? (
          <button
            type="button"
            class="secondary"
            onClick={() =>
              run(async () =>
                changed(
                  await webhooks.update(endpoint.id, { disabled: false }),
                  'Enabled the endpoint: its failures are forgotten.',
                ),
              )
            }
          >
            Enable
          </button>
        ) : null}
        <button
          type="button"
          class="secondary"
          onClick={() =>
            run(async () => {
              await webhooks.test(endpoint.id)
              setInfo('Sent a test event: its attempt shows in the log in a moment.')
              setSent((n) => n + 1)
            })
          }
        >
          Send test event
        </button>
        {button('roll', 'Roll secret…')}
        {button('delete', 'Delete…', 'danger')}
      </div>
      <Message kind="error">{error}</Message>
      <Message kind="info">{info}</Message>
      <section class="stack" aria-labelledby="details-heading">
        <h2 id="details-heading">Details</h2>
        <dl class="facts">
          <dt>URL</dt>
          <dd class="mono">{endpoint.url}</dd>
          <dt>Description</dt>
          <dd>{endpoint.description ?? 'none'}</dd>
          <dt>Projects</dt>
          <dd>{projectsText(endpoint.project_ids, names)}</dd>
          <dt>Event types</dt>
          <dd class="mono">{endpoint.event_types?.join(', ') ?? 'every type'}</dd>
          <dt>Failing since</dt>
          <dd>
            <When value={endpoint.failing_since} fallback="not failing" />
          </dd>
          {endpoint.disabled_at ? (
            <>
              <dt>Disabled</dt>
              <dd>
                <When value={endpoint.disabled_at} />
              </dd>
            </>
          ) : null}
          {endpoint.previous_secret_expires_at ? (
            <>
              <dt>Previous secret</dt>
              <dd>signs too until {when(endpoint.previous_secret_expires_at)}</dd>
            </>
          ) : null}
          <dt>Created</dt>
          <dd>
            <When value={endpoint.created_at} /> <span class="muted">({when(endpoint.created_at)})</span>
          </dd>
          <dt>Id</dt>
          <dd class="mono">{endpoint.id}</dd>
        </dl>
      </section>
      <Deliveries endpointId={endpoint.id} sent={sent} />
      {open === 'edit' ? (
        <EditEndpointDialog
          endpoint={endpoint}
          onClose={() => setOpen(undefined)}
          onSaved={(updated, edited) => changed(updated, edited ? 'Saved the endpoint.' : 'Nothing changed.')}
        />
      ) : null}
      {open === 'roll' ? (
        <RollSecretDialog
          endpoint={endpoint}
          onClose={() => setOpen(undefined)}
          onRolled={(rolled) => {
            // The page keeps the endpoint without its secret, which only the dialog shows.
            const { secret: _shown, ...kept } = rolled
            changed(kept, 'Rolled the signing secret.')
            setSecret({
              endpoint: rolled,
              title: 'The new signing secret',
              note: rolled.previous_secret_expires_at
                ? `The previous secret signs too until ${when(rolled.previous_secret_expires_at)}.`
                : 'The previous secret no longer signs.',
            })
          }}
        />
      ) : null}
      {open === 'delete' ? (
        <DeleteEndpointDialog
          endpoint={endpoint}
          onClose={() => setOpen(undefined)}
          onDeleted={() => {
            location.hash = '#/webhooks'
          }}
        />
      ) : null}
      {secret ? <SecretDialog shown={secret} onDone={() => setSecret(undefined)} /> : null}
    </main>
  )
}
