import { developerKeys, type Session } from '../../api'
import { KeyList } from '../../components/KeyList'

/** The developer's answer at the limit of active developer keys. */
export const DEVELOPER_LIMIT_MESSAGE =
  'You already have 10 active developer keys, the most allowed. Revoke one before you create another.'

/** The signed-in developer's own keys (at most 10 active). */
export function DeveloperKeys({ session }: { session: Session }) {
  return (
    <main id="main" class="stack">
      <h1>Developer keys</h1>
      <p class="muted">
        Developer keys sign in here and manage projects (<code>X-Developer-Key</code>). You may have at most
        10 active ones.
      </p>
      <KeyList
        calls={developerKeys}
        noun="developer key"
        currentPrefix={session.key_prefix}
        limitMessage={DEVELOPER_LIMIT_MESSAGE}
      />
    </main>
  )
}
