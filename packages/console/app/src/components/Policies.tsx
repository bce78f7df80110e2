import { useEffect, useState } from 'preact/hooks'
import { ApiError, type KeyInfo, type KeyPolicies, type PolicyChange, roles } from '../api'
import { creditsText, lowAtText } from './Credits'
import { LimitsFact, useRateLimitFields } from './RateLimits'

/** Entries of a list typed as text: one per line or comma-separated, blanks dropped. */
export const entries = (text: string) =>
  text
    .split(/[\n,]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')

/** An API key's policies as the text of the fields: one entry a line, permissions comma-separated. */
function policyTexts(keyInfo: KeyInfo | undefined) {
  if (!keyInfo || !('project_id' in keyInfo)) return { ips: '', permissions: '', roles: '', metadata: '' }
  return {
    ips: keyInfo.ip_allowlist?.join('\n') ?? '',
    permissions: keyInfo.permissions?.join(', ') ?? '',
    roles: keyInfo.roles?.join(', ') ?? '',
    metadata: keyInfo.metadata ? JSON.stringify(keyInfo.metadata) : '',
  }
}

/**
 * Metadata typed as JSON, or `undefined` for an empty field; a 422 for text that is not JSON (the
 * server refuses what is not an object, or larger than 4 KB, and names it).
 */
export function metadataOf(text: string): KeyPolicies['metadata'] | undefined {
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    throw new ApiError(422, 'json_invalid', 'Metadata should be a JSON object, e.g. {"plan": "pro"}.')
  }
}

/** A field of metadata, typed as a JSON object. */
export function MetadataField({
  id,
  value,
  onInput,
}: {
  id: string
  value: string
  onInput: (text: string) => void
}) {
  return (
    <>
      <label for={id}>Metadata: a JSON object of at most 4 KB</label>
      <textarea
        id={id}
        rows={2}
        class="mono"
        value={value}
        onInput={(event) => onInput(event.currentTarget.value)}
        placeholder='{"plan": "pro"}'
      />
    </>
  )
}

/**
 * What a field of names (permissions, roles) suggests as its value is typed: the entries typed so
 * far followed by each known name not among them (`reports:read, reports:write`), so that picking
 * one adds it.
 */
function nameSuggestions(text: string, known: readonly string[]): string[] {
  const typed = text.split(',').map((entry) => entry.trim())
  const done = typed.slice(0, -1).filter((entry) => entry !== '')
  const chosen = new Set(done)
  return known.filter((name) => !chosen.has(name)).map((name) => [...done, name].join(', '))
}

/**
 * A field of comma-separated names, suggesting the `known` ones (the declared permissions, the
 * project's roles) as it is typed; any other name (a wildcard such as `reports:*`) may be typed.
 */
export function NamesField({
  id,
  label,
  value,
  known,
  onInput,
}: {
  id: string
  label: string
  value: string
  known: readonly string[]
  onInput: (text: string) => void
}) {
  return (
    <>
      <label for={id}>{label}</label>
      <input
        id={id}
        value={value}
        onInput={(event) => onInput(event.currentTarget.value)}
        list={known.length > 0 ? `${id}-names` : undefined}
        placeholder={known[0]}
        autoComplete="off"
      />
      {known.length > 0 ? (
        <datalist id={`${id}-names`}>
          {nameSuggestions(value, known).map((suggestion) => (
            <option key={suggestion} value={suggestion} />
          ))}
        </datalist>
      ) : null}
    </>
  )
}

/** The names of a project's roles, which a key's roles field suggests; none until read, or on a failure. */
export function useRoleNames(projectId: string | undefined): readonly string[] {
  const [names, setNames] = useState<readonly string[]>([])
  useEffect(() => {
    if (projectId === undefined) return
    let current = true
    roles(projectId)
      .names()
      .then(
        (found) => current && setNames(found),
        () => {},
      )
    return () => {
      current = false
    }
  }, [projectId])
  return names
}

/** Entries typed as text, or nothing when there are none. */
const listOf = (text: string) => (entries(text).length > 0 ? entries(text) : undefined)

/** The key's own rate limits, `[]` for none (and for a developer key). */
const ownLimits = (keyInfo: KeyInfo | undefined) =>
  keyInfo && 'project_id' in keyInfo ? (keyInfo.ratelimits ?? []) : []

/**
 * The policies of an API key as fields: an IP allowlist, permissions (suggested from those the
 * host `declared`), roles (suggested from the project's `roleNames`), metadata and named rate limits, those of `initial` to edit a key's, else empty
 * for a new one. `read()` gives a new key's fields (the empty ones left out), `changed()` the
 * change of `initial`'s (only the fields edited; an emptied one is `null`: anywhere, every
 * permission, no metadata, no limits). Both throw a 422 for metadata that is not JSON or a limit
 * left half typed; the server checks the rest and its refusal names the faulty entry.
 */
export function usePolicyFields(
  declared: readonly string[],
  idPrefix = 'new-key',
  initial?: KeyInfo,
  roleNames: readonly string[] = [],
) {
  const start = policyTexts(initial)
  const [ips, setIps] = useState(start.ips)
  const [permissions, setPermissions] = useState(start.permissions)
  const [roleText, setRoleText] = useState(start.roles)
  const [metadata, setMetadata] = useState(start.metadata)
  const startLimits = ownLimits(initial)
  const limits = useRateLimitFields(idPrefix, startLimits, 'of this key alone')
  const parsedMetadata = () => metadataOf(metadata)
  const typedLimits = () => {
    const typed = limits.read()
    if ('invalid' in typed) throw new ApiError(422, 'value_error', typed.invalid)
    return typed
  }
  const read = (): KeyPolicies => {
    const parsed = parsedMetadata()
    const ratelimits = typedLimits()
    const [ipList, permissionList, roleList] = [listOf(ips), listOf(permissions), listOf(roleText)]
    return {
      ...(ipList ? { ip_allowlist: ipList } : {}),
      ...(permissionList ? { permissions: permissionList } : {}),
      ...(roleList ? { roles: roleList } : {}),
      ...(parsed === undefined ? {} : { metadata: parsed }),
      ...(ratelimits.length > 0 ? { ratelimits } : {}),
    }
  }
  const changed = (): PolicyChange => {
    const parsed = parsedMetadata()
    const ratelimits = typedLimits()
    const listOrNull = (text: string) => listOf(text) ?? null
    return {
      ...(ips !== start.ips ? { ip_allowlist: listOrNull(ips) } : {}),
      ...(permissions !== start.permissions ? { permissions: listOrNull(permissions) } : {}),
      ...(roleText !== start.roles ? { roles: listOrNull(roleText) } : {}),
      ...(metadata !== start.metadata ? { metadata: parsed ?? null } : {}),
      ...(JSON.stringify(ratelimits) === JSON.stringify(startLimits)
        ? {}
        : { ratelimits: ratelimits.length > 0 ? ratelimits : null }),
    }
  }
  const clear = () => {
    setIps('')
    setPermissions('')
    setRoleText('')
    setMetadata('')
    limits.clear()
  }
  const inputs = (
    <div class="stack">
      <label for={`${idPrefix}-ips`}>
        IP allowlist: addresses or CIDR ranges, one per line (empty: anywhere)
      </label>
      <textarea
        id={`${idPrefix}-ips`}
        rows={2}
        value={ips}
        onInput={(event) => setIps(event.currentTarget.value)}
        placeholder="203.0.113.0/24"
      />
      <NamesField
        id={`${idPrefix}-permissions`}
        label="Permissions, comma-separated (empty: every permission)"
        value={permissions}
        known={declared}
        onInput={setPermissions}
      />
      <NamesField
        id={`${idPrefix}-roles`}
        label="Roles, comma-separated: the key may also do what they allow"
        value={roleText}
        known={roleNames}
        onInput={setRoleText}
      />
      <MetadataField id={`${idPrefix}-metadata`} value={metadata} onInput={setMetadata} />
      {limits.fields}
    </div>
  )
  const fields = (
    <details class="policies">
      <summary>Access policies (optional)</summary>
      {inputs}
    </details>
  )
  return { fields, inputs, read, changed, clear }
}

/** An API key's access policies, credits and rate limits, as terms of its page's list of facts. */
export function PolicyFacts({ keyInfo }: { keyInfo: KeyInfo }) {
  if (!('project_id' in keyInfo)) return null
  const { ip_allowlist: ips, permissions, roles: held, metadata } = keyInfo
  return (
    <>
      <dt>Credits</dt>
      <dd class="mono">{creditsText(keyInfo)}</dd>
      <dt>Low credits</dt>
      <dd class="mono">{lowAtText(keyInfo)}</dd>
      <dt>IP allowlist</dt>
      <dd class="mono">{ips ? ips.join(', ') : 'any address'}</dd>
      <dt>Permissions</dt>
      <dd class="mono">{permissions ? permissions.join(', ') || 'none' : 'all'}</dd>
      <dt>Roles</dt>
      <dd class="mono">{held && held.length > 0 ? held.join(', ') : 'none'}</dd>
      <dt>Metadata</dt>
      <dd class="mono">{metadata ? JSON.stringify(metadata) : 'none'}</dd>
      <LimitsFact limits={ownLimits(keyInfo)} />
    </>
  )
}
