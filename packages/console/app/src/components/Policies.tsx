import { useState } from 'preact/hooks'
import { ApiError, type KeyInfo, type KeyPolicies, type PolicyChange } from '../api'
import { creditsText } from './Credits'
import { LimitsFact, useRateLimitFields } from './RateLimits'

/** Entries of a list typed as text: one per line or comma-separated, blanks dropped. */
const entries = (text: string) =>
  text
    .split(/[\n,]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')

/** An API key's policies as the text of the fields: one entry a line, permissions comma-separated. */
function policyTexts(keyInfo: KeyInfo | undefined) {
  if (!keyInfo || !('project_id' in keyInfo)) return { ips: '', permissions: '', metadata: '' }
  return {
    ips: keyInfo.ip_allowlist?.join('\n') ?? '',
    permissions: keyInfo.permissions?.join(', ') ?? '',
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
 * What the permission field suggests as its value is typed: the entries typed so far followed by
 * each declared name not among them (`reports:read, reports:write`), so that picking one adds it.
 */
function permissionSuggestions(text: string, declared: readonly string[]): string[] {
  const typed = text.split(',').map((entry) => entry.trim())
  const done = typed.slice(0, -1).filter((entry) => entry !== '')
  const chosen = new Set(done)
  return declared.filter((name) => !chosen.has(name)).map((name) => [...done, name].join(', '))
}

/** The key's own rate limits, `[]` for none (and for a developer key). */
const ownLimits = (keyInfo: KeyInfo | undefined) =>
  keyInfo && 'project_id' in keyInfo ? (keyInfo.ratelimits ?? []) : []

/**
 * The policies of an API key as fields: an IP allowlist, permissions (suggested from those the
 * host `declared`), metadata and named rate limits, those of `initial` to edit a key's, else empty
 * for a new one. `read()` gives a new key's fields (the empty ones left out), `changed()` the
 * change of `initial`'s (only the fields edited; an emptied one is `null`: anywhere, every
 * permission, no metadata, no limits). Both throw a 422 for metadata that is not JSON or a limit
 * left half typed; the server checks the rest and its refusal names the faulty entry.
 */
export function usePolicyFields(declared: readonly string[], idPrefix = 'new-key', initial?: KeyInfo) {
  const start = policyTexts(initial)
  const [ips, setIps] = useState(start.ips)
  const [permissions, setPermissions] = useState(start.permissions)
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
    return {
      ...(entries(ips).length > 0 ? { ip_allowlist: entries(ips) } : {}),
      ...(entries(permissions).length > 0 ? { permissions: entries(permissions) } : {}),
      ...(parsed === undefined ? {} : { metadata: parsed }),
      ...(ratelimits.length > 0 ? { ratelimits } : {}),
    }
  }
  const changed = (): PolicyChange => {
    const parsed = parsedMetadata()
    const ratelimits = typedLimits()
    const listOrNull = (text: string) => (entries(text).length > 0 ? entries(text) : null)
    return {
      ...(ips !== start.ips ? { ip_allowlist: listOrNull(ips) } : {}),
      ...(permissions !== start.permissions ? { permissions: listOrNull(permissions) } : {}),
      ...(metadata !== start.metadata ? { metadata: parsed ?? null } : {}),
      ...(JSON.stringify(ratelimits) === JSON.stringify(startLimits)
        ? {}
        : { ratelimits: ratelimits.length > 0 ? ratelimits : null }),
    }
  }
  const clear = () => {
    setIps('')
    setPermissions('')
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
      <label for={`${idPrefix}-permissions`}>Permissions, comma-separated (empty: every permission)</label>
      <input
        id={`${idPrefix}-permissions`}
        value={permissions}
        onInput={(event) => setPermissions(event.currentTarget.value)}
        list={declared.length > 0 ? `${idPrefix}-permission-names` : undefined}
        placeholder={declared[0]}
        autoComplete="off"
      />
      {declared.length > 0 ? (
        <datalist id={`${idPrefix}-permission-names`}>
          {permissionSuggestions(permissions, declared).map((value) => (
            <option key={value} value={value} />
          ))}
        </datalist>
      ) : null}
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
  const { ip_allowlist: ips, permissions, metadata } = keyInfo
  return (
    <>
      <dt>Credits</dt>
      <dd class="mono">{creditsText(keyInfo)}</dd>
      <dt>IP allowlist</dt>
      <dd class="mono">{ips ? ips.join(', ') : 'any address'}</dd>
      <dt>Permissions</dt>
      <dd class="mono">{permissions ? permissions.join(', ') || 'none' : 'all'}</dd>
      <dt>Metadata</dt>
      <dd class="mono">{metadata ? JSON.stringify(metadata) : 'none'}</dd>
      <LimitsFact limits={ownLimits(keyInfo)} />
    </>
  )
}
