import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks'
import {
  type Page as ListPage,
  type Project,
  projects as projectCalls,
  type Session,
  session,
  whenSignedOut,
} from './api'
import { lazyPage } from './components/lazy'
import { Message } from './components/Message'
import { Projects } from './pages/projects/Projects'
import { SignIn } from './pages/sign-in/SignIn'
import { NAVIGATION, type Route, route } from './routes'

// The projects page and the sign-in are in the first script; every other page is a chunk of its
// own, fetched when it is first shown.
const Audit = lazyPage(() => import('./pages/audit/Audit').then((page) => page.Audit))
const DeveloperKeys = lazyPage(() =>
  import('./pages/developer-keys/DeveloperKeys').then((page) => page.DeveloperKeys),
)
const Identities = lazyPage(() => import('./pages/identities/Identities').then((page) => page.Identities))
const Roles = lazyPage(() => import('./pages/roles/Roles').then((page) => page.Roles))
const IdentityPage = lazyPage(() => import('./pages/identity/Identity').then((page) => page.IdentityPage))
const ProjectKey = lazyPage(() => import('./pages/key/KeyPages').then((page) => page.ProjectKey))
const DeveloperKey = lazyPage(() => import('./pages/key/KeyPages').then((page) => page.DeveloperKey))
const ProjectKeys = lazyPage(() =>
  import('./pages/project-keys/ProjectKeys').then((page) => page.ProjectKeys),
)
const ProjectUsage = lazyPage(() =>
  import('./pages/project-usage/ProjectUsage').then((page) => page.ProjectUsage),
)
const Webhooks = lazyPage(() => import('./pages/webhooks/Webhooks').then((page) => page.Webhooks))
const WebhookEndpoint = lazyPage(() =>
  import('./pages/webhooks/Endpoint').then((page) => page.WebhookEndpointPage),
)

/** The pages of a route that are chunks of their own (the projects page is not). */
const PAGES = {
  keys: ProjectKeys,
  usage: ProjectUsage,
  identities: Identities,
  roles: Roles,
  identity: IdentityPage,
  key: ProjectKey,
  'developer-key': DeveloperKey,
  'developer-keys': DeveloperKeys,
  webhooks: Webhooks,
  webhook: WebhookEndpoint,
  audit: Audit,
} as const

/** Starts fetching the code of the page that a visit opens by its address, beside the session's check. */
export function preloadPage(at: Route): void {
  if (at.page !== 'projects') PAGES[at.page === 'project' ? at.section : at.page].preload()
}

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
  useProjectName(at, projects, remember)
  switch (at.page) {
    case 'project': {
      const project = projects.get(at.projectId)
      if (at.section === 'usage') return <ProjectUsage projectId={at.projectId} project={project} />
      if (at.section === 'roles') {
        return <Roles projectId={at.projectId} project={project} declared={current.permissions} />
      }
      if (at.section === 'identities') {
        return <Identities projectId={at.projectId} project={project} search={at.search} />
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
    case 'key':
      return (
        <ProjectKey
          projectId={at.projectId}
          keyId={at.keyId}
          project={projects.get(at.projectId)}
          permissions={current.permissions}
        />
      )
    case 'developer-key':
      return <DeveloperKey keyId={at.keyId} currentPrefix={current.key_prefix} />
    case 'developer-keys':
      return <DeveloperKeys session={current} />
    case 'webhooks':
      return <Webhooks />
    case 'webhook':
      return <WebhookEndpoint endpointId={at.endpointId} />
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
