import { useCallback, useState } from 'preact/hooks'
import { ApiError, type CreatedKey, type KeyCalls, type KeyInfo, type KeySearch } from '../api'
import { keyStatus } from '../format'
import { keyHref } from '../routes'
import { SearchForm } from './Fields'
import { IssuedKey } from './IssuedKey'
import { ListTable } from './ListTable'
import { Message } from './Message'
import { usePolicyFields, useRoleNames } from './Policies'
import { usePaged } from './paged'
import { explainLimits } from './RateLimits'
import { ListStates, When } from './States'

/** What a refusal means to the reader: the server's message, or a plainer one for known cases. */
export function explain(error: unknown, limitMessage: string): string {
  return error instanceof ApiError && error.type === 'limit_exceeded' ? limitMessage : explainLimits(error)
}

/**
 * The keys of one owner: creation, with the new key shown once, and a compact paged table (name,
 * key, status, an API key's roles, last used, created) whose names open each key's page, where it is changed.
 */
export function KeyList({
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
  /** Whether keys have access policies (API keys), which creation may set. */
  policies?: boolean
  /** The permission names the host declares, which the policy fields suggest. */
  permissions?: readonly string[]
}) {
  const roleNames = useRoleNames(policies ? calls.projectId : undefined)
  const policyFields = usePolicyFields(permissions, 'new-key', undefined, roleNames)
  const [error, setError] = useState('')
  const [issued, setIssued] = useState<CreatedKey | undefined>()
  const [name, setName] = useState('')
  const [search, setSearch] = useState<KeySearch>({})
  const fetchPage = useCallback((cursor: string | null) => calls.list(cursor, search), [calls, search])
  const paged = usePaged(fetchPage)
  const searching = search.q !== undefined || search.status !== undefined

  const create = async (event: Event) => {
    event.preventDefault()
    setError('')
    try {
      const created = await calls.create(name.trim(), undefined, policies ? policyFields.read() : undefined)
      setName('')
      policyFields.clear()
      setIssued(created)
      await paged.reload()
    } catch (failure) {
      setError(explain(failure, limitMessage))
    }
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
      {issued ? <IssuedKey issued={issued} onDone={() => setIssued(undefined)} /> : null}
      <KeySearchForm noun={noun} onSearch={setSearch} />
      <KeyTable
        caption={`${noun}s`}
        keys={paged.items}
        projectId={calls.projectId}
        currentPrefix={currentPrefix}
      />
      <ListStates
        paged={paged}
        what={`${noun}s`}
        message={(failure) => explain(failure, limitMessage)}
        empty={
          searching ? (
            <p>No {noun} matches this search.</p>
          ) : (
            <p>No {noun}s yet: name one above and create it.</p>
          )
        }
      />
    </div>
  )
}

/**
 * Keys as a compact table: name (a link to the key's page), key, status, an API key's roles, last
 * used, created; the key of this session is marked. Nothing without keys (the list's states say why).
 */
export function KeyTable({
  caption,
  keys,
  projectId,
  currentPrefix,
}: {
  caption: string
  keys: readonly KeyInfo[]
  projectId: string | undefined
  currentPrefix?: string | undefined
}) {
  // API keys hold roles, which the list names; developer keys have none.
  const withRoles = projectId !== undefined
  const columns = ['Name', 'Key', 'Status', ...(withRoles ? ['Roles'] : []), 'Last used', 'Created']
  return (
    <ListTable caption={caption} columns={columns}>
      {keys.map((key) => {
        const status = keyStatus(key)
        return (
          <tr key={key.id} data-key-prefix={key.key_prefix}>
            <td data-label="Name">
              <a href={keyHref(key.id, projectId)}>{key.name ?? 'unnamed'}</a>
              {currentPrefix === key.key_prefix ? <span class="badge">this session</span> : null}
            </td>
            <td data-label="Key" class="mono">
              {key.display}
            </td>
            <td data-label="Status">
              <span class={`status status-${status.tone}`}>{status.label}</span>
              {key.rotation_due ? <span class="badge badge-warn">rotation due</span> : null}
            </td>
            {withRoles ? <td data-label="Roles">{rolesText(key)}</td> : null}
            <td data-label="Last used">
              <When value={key.last_used_at} fallback="never" />
            </td>
            <td data-label="Created">
              <When value={key.created_at} />
            </td>
          </tr>
        )
      })}
    </ListTable>
  )
}

/** The roles an API key holds, by name, or "none". */
const rolesText = (key: KeyInfo) => ('roles' in key && key.roles?.length ? key.roles.join(', ') : 'none')

// A whole key, as someone might paste it into the search.
const FULL_KEY = /^ak_[A-Za-z0-9_-]{32}$/

const STATUSES: readonly { value: '' | NonNullable<KeySearch['status']>; label: string }[] = [
  { value: '', label: 'Any status' },
  { value: 'active', label: 'Active' },
  { value: 'expired', label: 'Expired' },
  { value: 'revoked', label: 'Revoked' },
  { value: 'leaked', label: 'Leaked (revoked by a leak report)' },
]

/** A search of the list by name or prefix and by status, applied by the server when submitted. */
function KeySearchForm({ noun, onSearch }: { noun: string; onSearch: (search: KeySearch) => void }) {
  const [q, setQ] = useState('')
  const [status, setStatus] = useState<(typeof STATUSES)[number]['value']>('')
  return (
    <SearchForm
      onSearch={() => {
        // A whole key pasted here is cut to its prefix, all a search matches: the key is never sent.
        const text = FULL_KEY.test(q.trim()) ? q.trim().slice(0, 8) : q.trim()
        if (text !== q) setQ(text)
        onSearch({ ...(text === '' ? {} : { q: text }), ...(status === '' ? {} : { status }) })
      }}
    >
      <label for="key-search">Find {noun}s</label>
      <input
        id="key-search"
        type="search"
        maxLength={100}
        value={q}
        placeholder="name or ak_ prefix"
        onInput={(event) => setQ(event.currentTarget.value)}
      />
      <label for="key-status" class="visually-hidden">
        Status
      </label>
      <select
        id="key-status"
        value={status}
        onChange={(event) => setStatus(event.currentTarget.value as (typeof STATUSES)[number]['value'])}
      >
        {STATUSES.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
      <button type="submit" class="secondary">
        Search
      </button>
    </SearchForm>
  )
}
