import { useCallback, useMemo, useState } from 'preact/hooks'
import { ApiError, messageOf, type Page, type WebhookEndpoint, webhooks } from '../../api'
import { ListTable } from '../../components/ListTable'
import { Message } from '../../components/Message'
import { usePaged } from '../../components/paged'
import { ListStates, When } from '../../components/States'
import { summary } from '../../format'
import { webhookHref } from '../../routes'
import { CreateEndpointDialog, SecretDialog, type ShownSecret } from './EndpointDialogs'
import { useProjects } from './EndpointFields'
import { endpointStatus, projectsText } from './webhook-words'

/** A failure to list endpoints: a host without webhooks says so. */
export const explainWebhooks = (failure: unknown) =>
  failure instanceof ApiError && (failure.status === 404 || failure.status === 405)
    ? 'This server sends no webhooks.'
    : messageOf(failure)

// The API gives every endpoint in one answer (at most 10).
const allEndpoints = async (): Promise<Page<WebhookEndpoint>> => ({
  items: await webhooks.list(),
  next: null,
})

/**
 * The signed-in developer's webhook endpoints: each one's URL (a link to its page, where it is
 * edited, rolled, tested and deleted, and its deliveries are), description, status, filters and
 * since when it fails; and the registration of a new one, whose signing secret is shown once.
 */
export function Webhooks() {
  const paged = usePaged(useCallback(allEndpoints, []))
  const projects = useProjects()
  const names = useMemo(() => new Map(projects.map((project) => [project.id, project.name])), [projects])
  const [adding, setAdding] = useState(false)
  const [secret, setSecret] = useState<ShownSecret | undefined>()
  const [info, setInfo] = useState('')

  return (
    <main id="main" class="stack">
      <h1>Webhooks</h1>
      <p class="muted">
        Endpoints of yours that Keyward POSTs events to (a key created, revoked, leaked, a rate limit
        reached...), each signed with the endpoint's own secret. At most 10; one that fails for 5 days is
        disabled.
      </p>
      <p>
        <button type="button" onClick={() => setAdding(true)}>
          Add endpoint…
        </button>
      </p>
      <Message kind="info">{info}</Message>
      <ListTable
        caption="Webhook endpoints"
        columns={['URL', 'Description', 'Status', 'Projects', 'Event types', 'Failing since']}
      >
        {paged.items.map((endpoint) => {
          const status = endpointStatus(endpoint)
          return (
            <tr key={endpoint.id}>
              <td data-label="URL" class="wide">
                <a href={webhookHref(endpoint.id)} class="mono clip clip-url">
                  {endpoint.url}
                </a>
              </td>
              <td data-label="Description">
                <span class="clip">{endpoint.description ?? '—'}</span>
              </td>
              <td data-label="Status">
                <span class={`status status-${status.tone}`} title={status.why}>
                  {status.label}
                </span>
              </td>
              <td data-label="Projects">
                {projectsText(endpoint.project_ids, names, (named) => summary(named, '', 1))}
              </td>
              <td data-label="Event types" class="mono">
                {endpoint.event_types === null ? 'every type' : summary(endpoint.event_types, '', 1)}
              </td>
              <td data-label="Failing since">
                <When value={endpoint.failing_since} />
              </td>
            </tr>
          )
        })}
      </ListTable>
      <ListStates
        paged={paged}
        what="webhook endpoints"
        message={explainWebhooks}
        empty={
          <p>
            No endpoints yet: add one, with the URL of a receiver of yours, and keep its signing secret to
            verify each delivery.
          </p>
        }
      />
      {adding ? (
        <CreateEndpointDialog
          onClose={() => setAdding(false)}
          onCreated={(created) => {
            setAdding(false)
            setSecret({ endpoint: created, title: 'Signing secret of the new endpoint' })
            setInfo(`Added the endpoint ${created.url}.`)
            void paged.reload()
          }}
        />
      ) : null}
      {secret ? <SecretDialog shown={secret} onDone={() => setSecret(undefined)} /> : null}
    </main>
  )
}
