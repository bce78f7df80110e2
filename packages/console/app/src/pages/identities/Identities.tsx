import { useCallback, useEffect, useMemo, useState } from 'preact/hooks'
import { ApiError, type Identity, identities, messageOf, type Project } from '../../api'
import { creditsText } from '../../components/Credits'
import { SearchForm } from '../../components/Fields'
import { ListTable } from '../../components/ListTable'
import { Message } from '../../components/Message'
import { ProjectHeader } from '../../components/ProjectHeader'
import { usePaged } from '../../components/paged'
import { ListStates, When } from '../../components/States'
import { limitsSummary } from '../../limits'
import { identitiesHref, identityHref } from '../../routes'
import { CreateIdentity } from './CreateIdentity'

/** A failure to list identities: a host whose store keeps none says so. */
export const explainIdentities = (failure: unknown) =>
  failure instanceof ApiError && (failure.status === 404 || failure.status === 405)
    ? 'This server keeps no identities.'
    : messageOf(failure)

/**
 * One project's identities: the customers whose keys share rate limits, a credit pool and
 * metadata. Their creation, a search by external id that the server runs (`search`, kept in the
 * address), and a paged table whose external ids open each identity's page.
 */
export function Identities({
  projectId,
  project,
  search,
}: {
  projectId: string
  project: Project | undefined
  search: string | undefined
}) {
  const calls = useMemo(() => identities(projectId), [projectId])
  const fetchPage = useCallback((cursor: string | null) => calls.list(cursor, search), [calls, search])
  const paged = usePaged(fetchPage)
  const [created, setCreated] = useState<Identity | undefined>()

  return (
    <main id="main" class="stack">
      <ProjectHeader projectId={projectId} project={project} section="identities" />
      <p class="muted">
        An identity is one of your customers: its keys share its rate limits, its credit pool and its
        metadata. Open one by its external id to change it, see its keys and its usage.
      </p>
      <CreateIdentity
        calls={calls}
        onCreated={(identity) => {
          setCreated(identity)
          void paged.reload()
        }}
      />
      <Message kind="info">
        {created ? (
          <>
            Created the identity “{created.external_id}”.{' '}
            <a href={identityHref(projectId, created.id)}>Open its page</a>
          </>
        ) : null}
      </Message>
      <Search projectId={projectId} search={search} />
      <ListTable caption="Identities" columns={['External id', 'Credit pool', 'Rate limits', 'Created']}>
        {paged.items.map((identity) => (
          <tr key={identity.id}>
            <td data-label="External id" class="mono wide">
              <a href={identityHref(projectId, identity.id)}>{identity.external_id}</a>
            </td>
            <td data-label="Credit pool">{creditsText(identity, 'no pool')}</td>
            <td data-label="Rate limits">{limitsSummary(identity.ratelimits)}</td>
            <td data-label="Created">
              <When value={identity.created_at} />
            </td>
          </tr>
        ))}
      </ListTable>
      <ListStates
        paged={paged}
        what="identities"
        message={explainIdentities}
        empty={
          search === undefined ? (
            <p>No identities yet: give the external id of a customer above and create one.</p>
          ) : (
            <p>
              No identity’s external id contains <span class="mono">“{search}”</span>.
            </p>
          )
        }
      />
    </main>
  )
}

/**
 * The search of identities by external id, which the server runs (`?q=`, any case): submitted, it
 * goes to the address that holds it, so that a link to the result can be shared.
 */
function Search({ projectId, search }: { projectId: string; search: string | undefined }) {
  const [text, setText] = useState(search ?? '')
  useEffect(() => setText(search ?? ''), [search])
  return (
    <SearchForm
      onSearch={() => {
        const wanted = text.trim()
        location.hash = identitiesHref(projectId, wanted === '' ? undefined : wanted)
      }}
    >
      <label for="identity-search">Find identities by external id</label>
      <input
        id="identity-search"
        type="search"
        maxLength={255}
        value={text}
        placeholder="e.g. customer_acme"
        autoComplete="off"
        onInput={(event) => setText(event.currentTarget.value)}
      />
      <button type="submit" class="secondary">
        Find
      </button>
      {search === undefined ? null : <a href={identitiesHref(projectId)}>Show every identity</a>}
    </SearchForm>
  )
}
