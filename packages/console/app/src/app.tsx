import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { type Project, type Session, session, whenSignedOut } from './api'
import { Message } from './components/Message'
import { Audit } from './pages/audit/Audit'
import { DeveloperKeys } from './pages/developer-keys/DeveloperKeys'
import { ProjectKeys } from './pages/project-keys/ProjectKeys'
import { Projects } from './pages/projects/Projects'
import { SignIn } from './pages/sign-in/SignIn'

/**
 * The pages of the navigation, in order. A page that a later feature adds (usage, the audit
 * log) is one more entry here and one more case in `Page`.
 */
const NAVIGATION: readonly { readonly hash: string; readonly label: string }[] = [
  { hash: '#/projects', label: 'Projects' },
  { hash: '#/developer-keys', label: 'Developer keys' },
  { hash: '#/audit', label: 'Audit log' },
]

// How often an open page asks whether its session still stands (a revoked key ends it).
const SESSION_CHECK_MS = 30_000

function useHash(): string {
  const [hash, setHash] = useState(location.hash || '#/projects')
  useEffect(() => {
    const update = () => setHash(location.hash || '#/projects')
    addEventListener('hashchange', update)
    return () => removeEventListener('hashchange', update)
  }, [])
  return hash
}

function Page({
  hash,
  current,
  projects,
  remember,
}: {
  hash: string
  current: Session
  projects: Map<string, Project>
  remember: (project: Project) => void
}) {
  const project = /^#\/projects\/([^/]+)$/.exec(hash)
  if (project) {
    const id = decodeURIComponent(project[1]!)
    return <ProjectKeys projectId={id} project={projects.get(id)} permissions={current.permissions} />
  }
  if (hash === '#/developer-keys') return <DeveloperKeys session={current} />
  if (hash === '#/audit') return <Audit />
  return <Projects remember={remember} />
}

export function App() {
  const [current, setCurrent] = useState<Session | null | undefined>(undefined)
  const [notice, setNotice] = useState('')
  const hash = useHash()
  const projects = useRef(new Map<string, Project>()).current
  const remember = useCallback((project: Project) => void projects.set(project.id, project), [projects])

  useEffect(() => {
    // Signed out at the first look is no news; a session that ends later says why.
    const listen = () =>
      whenSignedOut((message) => {
        setNotice(message)
        setCurrent(null)
      })
    session.current().then(
      (found) => {
        listen()
        setCurrent(found)
      },
      () => {
        listen()
        setCurrent(null)
      },
    )
  }, [])

  useEffect(() => {
    if (!current) return
    const timer = setInterval(() => void session.current().catch(() => {}), SESSION_CHECK_MS)
    return () => clearInterval(timer)
  }, [current])

  useEffect(() => {
    document.title = current ? 'Keyward console' : 'Sign in · Keyward console'
  }, [current])

  if (current === undefined) return <p role="status">Loading…</p>
  if (current === null) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(signedIn) => {
          setNotice('')
          setCurrent(signedIn)
        }}
      />
    )
  }

  const signOut = async () => {
    try {
      await session.signOut()
    } finally {
      setNotice('You have signed out.')
      setCurrent(null)
    }
  }

  return (
    <>
      <header class="top">
        <span class="brand">Keyward</span>
        <nav aria-label="Console">
          <ul>
            {NAVIGATION.map((item) => (
              <li key={item.hash}>
                <a href={item.hash} aria-current={hash.startsWith(item.hash) ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          <span class="visually-hidden">Signed in as </span>
          {current.developer_id} <span class="mono muted">({current.display})</span>
        </span>
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <Message kind="info">{notice}</Message>
      <Page hash={hash} current={current} projects={projects} remember={remember} />
    </>
  )
}
