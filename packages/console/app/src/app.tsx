import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks'
import {
  developerKeys,
  type Page as ListPage,
  type Project,
  projects as projectCalls,
  projectKeys,
  type Session,
  session,
  whenSignedOut,
} from './api'
import { Message } from './components/Message'
import { Audit } from './pages/audit/Audit'
import { DEVELOPER_LIMIT_MESSAGE, DeveloperKeys } from './pages/developer-keys/DeveloperKeys'
import { Identities } from './pages/identities/Identities'
import { IdentityPage } from './pages/identity/Identity'
import { Key } from './pages/key/Key'
import { PROJECT_LIMIT_MESSAGE, ProjectKeys } from './pages/project-keys/ProjectKeys'
import { ProjectUsage } from './pages/project-usage/ProjectUsage'
import { Projects } from './pages/projects/Projects'
import { Roles } from './pages/roles/Roles'
import { SignIn } from './pages/sign-in/SignIn'
import { NAVIGATION, projectHref, type Route, route } from './routes'

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

// How many pages of projects a page opened by its address reads to learn its project's name.
const NAME_PAGES = 4

/**
 * Learns the name of the project a page opened by its address is of (after a reload, or from a
 * link), from the first pages of the developer's projects; the page shows the project's id until then.
 */
function useProjectName(at: Route, projects: Map<string, Project>, remember: (project: Project) => void) {
  const [, learned] = useState(0)
  useEffect(() => {
    const id = 'projectId' in at ? at.projectId : undefined
    if (id === undefined || projects.has(id)) return
    let current = true
    void (async () => {
      let cursor: string | null = null
      for (let read = 0; read < NAME_PAGES && current && !projects.has(id); read++) {
        const page: ListPage<Project> | null = await projectCalls.list(cursor).catch(() => null)
        if (page === null) return
        for (const project of page.items) remember(project)
        if (page.next === null) break
        cursor = page.next
      }
      if (current) learned((n) => n + 1)
    })()
    return () => {
      current = false
    }
  }, [at, projects, remember])
}

/** The page of a route (`routes.ts`): each page is a folder under `pages/`. */
function Page({
  at,
  current,
  projects,
  remember,
}: {
  at: Route
  current: Session
  projects: Map<string, Project>
  remember: (project: Project) => void
}) {
  const calls = useMemo(() => (at.page === 'key' ? projectKeys(at.projectId) : developerKeys), [at])
  useProjectName(at, projects, remember)
  switch (at.page) {
    case 'project': {
      const project = projects.get(at.projectId)
      if (at.section === 'usage') return <ProjectUsage projectId={at.projectId} project={project} />
      if (at.section === 'roles') {
        return <Roles projectId={at.projectId} project={project} declared={current.permissions} />
      }
      if (at.section === 'identities') {
        return <Identities projectId={at.projectId} project={project} externalId={at.externalId} />
      }
      return <ProjectKeys projectId={at.projectId} project={project} permissions={current.permissions} />
    }
    case 'identity':
      return (
        <IdentityPage
          projectId={at.projectId}
          identityId={at.identityId}
          project={projects.get(at.projectId)}
        />
      )
    case 'key': {
      const project = projects.get(at.projectId)
      return (
        <Key
          calls={calls}
          keyId={at.keyId}
          back={{
            href: projectHref(at.projectId),
            label: `API keys of ${project ? `“${project.name}”` : 'the project'}`,
          }}
          limitMessage={PROJECT_LIMIT_MESSAGE}
          permissions={current.permissions}
        />
      )
    }
    case 'developer-key':
      return (
        <Key
          calls={calls}
          keyId={at.keyId}
          back={{ href: '#/developer-keys', label: 'Developer keys' }}
          limitMessage={DEVELOPER_LIMIT_MESSAGE}
          permissions={[]}
          currentPrefix={current.key_prefix}
        />
      )
    case 'developer-keys':
      return <DeveloperKeys session={current} />
    case 'audit':
      return <Audit />
    default:
      return <Projects remember={remember} />
  }
}

export function App() {
  const [current, setCurrent] = useState<Session | null | undefined>(undefined)
  const [notice, setNotice] = useState('')
  const hash = useHash()
  const at = useMemo(() => route(hash), [hash])
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
      <Page at={at} current={current} projects={projects} remember={remember} />
    </>
  )
}
