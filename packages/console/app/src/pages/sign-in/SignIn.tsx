import { useRef, useState } from 'preact/hooks'
import { ApiError, type Session, session } from '../../api'
import { Message } from '../../components/Message'

/** What a refused sign-in means, in plain words; the server's own message otherwise. */
function explain(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Something went wrong. Try again.'
  switch (error.type) {
    case 'key_missing':
      return 'Enter your developer key.'
    case 'key_invalid':
      return 'This developer key is not valid: it is unknown, revoked or expired.'
    case 'key_wrong_type':
      return 'This is a project API key. Sign in with a developer key.'
    default:
      return error.message
  }
}

/**
 * Sign-in with a developer key. The key goes to the server once, in a header, and is then
 * forgotten: the field is emptied and no state keeps it.
 */
export function SignIn({ notice, onSignedIn }: { notice: string; onSignedIn: (session: Session) => void }) {
  const field = useRef<HTMLInputElement>(null)
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)

  const submit = async (event: Event) => {
    event.preventDefault()
    const input = field.current
    if (!input) return
    const key = input.value.trim()
    input.value = ''
    setBusy(true)
    try {
      onSignedIn(await session.signIn(key))
    } catch (failure) {
      setError(explain(failure))
      input.focus()
    } finally {
      setBusy(false)
    }
  }

  return (
    <main class="sign-in" id="main">
      <h1>Keyward console</h1>
      <p>Sign in with one of your developer keys to manage your projects and keys.</p>
      <Message kind="info">{notice}</Message>
      <form class="stack" onSubmit={submit}>
        <label for="developer-key">Developer key</label>
        <input
          id="developer-key"
          ref={field}
          type="password"
          autoComplete="off"
          spellcheck={false}
          placeholder="ak_…"
          aria-describedby="sign-in-error"
          required
        />
        <div id="sign-in-error">
          <Message kind="error">{error}</Message>
        </div>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="hint">
        Your key is exchanged for a session that ends after a period without use, on sign-out, or when the key
        is revoked. The page never keeps the key.
      </p>
    </main>
  )
}
