import { useState } from 'preact/hooks'
import { ApiError, type KeyInfo, type KeyPolicies } from '../api'
import { creditsText } from './Credits'

/** Entries of a list typed as text: one per line or comma-separated, blanks dropped. */
const entries = (text: string) =>
  text
    .split(/[\n,]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')

/**
 * The optional policies of a new API key: an IP allowlist, permissions and metadata, as text
 * fields. `read()` gives the body's fields, or throws a 422 for metadata that is not JSON; the
 * server checks the rest and its refusal names the faulty entry.
 */
export function usePolicyFields() {
  const [ips, setIps] = useState('')
  const [permissions, setPermissions] = useState('')
  const [metadata, setMetadata] = useState('')
  const read = (): KeyPolicies => {
    let parsed: unknown
    if (metadata.trim() !== '') {
      try {
        parsed = JSON.parse(metadata)
      } catch {
        throw new ApiError(422, 'json_invalid', 'Metadata should be a JSON object, e.g. {"plan": "pro"}.')
      }
    }
    return {
      ...(entries(ips).length > 0 ? { ip_allowlist: entries(ips) } : {}),
      ...(entries(permissions).length > 0 ? { permissions: entries(permissions) } : {}),
      ...(parsed === undefined ? {} : { metadata: parsed as KeyPolicies['metadata'] }),
    }
  }
  const clear = () => {
    setIps('')
    setPermissions('')
    setMetadata('')
  }
  const fields = (
    <details class="policies">
      <summary>Access policies (optional)</summary>
      <div class="stack">
        <label for="new-key-ips">
          IP allowlist: addresses or CIDR ranges, one per line (empty: anywhere)
        </label>
        <textarea
          id="new-key-ips"
          rows={2}
          value={ips}
          onInput={(event) => setIps(event.currentTarget.value)}
          placeholder="203.0.113.0/24"
        />
        <label for="new-key-permissions">Permissions, comma-separated (empty: every permission)</label>
        <input
          id="new-key-permissions"
          value={permissions}
          onInput={(event) => setPermissions(event.currentTarget.value)}
          placeholder="generations:write"
        />
        <label for="new-key-metadata">Metadata: a JSON object of at most 4 KB</label>
        <textarea
          id="new-key-metadata"
          rows={2}
          class="mono"
          value={metadata}
          onInput={(event) => setMetadata(event.currentTarget.value)}
          placeholder='{"plan": "pro"}'
        />
      </div>
    </details>
  )
  return { fields, read, clear }
}

/** An API key's policies in its row of the table: allowlist, permissions, metadata. */
export function PolicyCell({ keyInfo }: { keyInfo: KeyInfo }) {
  if (!('project_id' in keyInfo)) return null
  const { ip_allowlist: ips, permissions, metadata } = keyInfo
  return (
    <td data-label="Policies">
      <dl class="policy-list">
        <dt>IPs</dt>
        <dd class="mono">{ips ? ips.join(', ') : 'any'}</dd>
        <dt>Permissions</dt>
        <dd class="mono">{permissions ? permissions.join(', ') || 'none' : 'all'}</dd>
        {metadata ? (
          <>
            <dt>Metadata</dt>
            <dd class="mono">{JSON.stringify(metadata)}</dd>
          </>
        ) : null}
        <dt>Credits</dt>
        <dd class="mono">{creditsText(keyInfo)}</dd>
      </dl>
    </td>
  )
}
