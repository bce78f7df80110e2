import { useCallback, useEffect, useState } from 'preact/hooks'
import { ApiError, type CreatedKey, hostOperations, messageOf, type Project, projects } from '../../api'
import { Dialog, DialogButtons } from '../../components/Dialog'
import { IssuedKey } from '../../components/IssuedKey'
import { Message } from '../../components/Message'
import { usePaged } from '../../components/paged'
import { ListStates, When } from '../../components/States'
import { projectHref } from '../../routes'

/** A failure to list projects: a host whose key routes do not list them says so. */
const explain = (failure: unknown) =>
  failure instanceof ApiError && (failure.status === 404 || failure.status === 405)
    ? 'This server does not list projects: its key routes have no `listProjects`.'
    : messageOf(failure)

/** The developer's projects: a paged list, creation (with the default key shown once), deletion. */
export function Projects({ remember }: { remember: (project: Project) => void }) {
  const [name, setName] = useState('')
  const [error, setError] = useState('')
  const [info, setInfo] = useState('')
  const [issued, setIssued] = useState<CreatedKey | undefined>()
  const [deleting, setDeleting] = useState<Project | undefined>()
  // Deletion is offered where the host's API deletes projects, as its OpenAPI document says.
  const [deletes, setDeletes] = useState(false)
  const fetchPage = useCallback(
    async (cursor: string | null) => {
      const page = await projects.list(cursor)
      for (const project of page.items) remember(project)
      return page
    },
    [remember],
  )
  const paged = usePaged(fetchPage)
  const { items: list, reload } = paged
  // The API's document is read once the list is shown: its parsing never delays the first render.
  const listed = !paged.loading
  useEffect(() => {
    if (!listed) return
    let current = true
    void hostOperations().then((host) => current && setDeletes(host.deletesProjects))
    return () => {
      current = false
    }
  }, [listed])

  const create = async (event: Event) => {
    event.preventDefault()
    setError('')
    setInfo('')
    try {
      const created = await projects.create(name.trim())
      setName('')
      remember(created.project)
      setIssued(created.api_key)
      setInfo(`Created project “${created.project.name}” with its default API key.`)
      await reload()
    } catch (failure) {
      setError(messageOf(failure))
    }
  }

  return (
    <main id="main" class="stack">
      <h1>Projects</h1>
      <form class="inline-form" onSubmit={create}>
        <label for="project-name">Name of the new project</label>
        <input
          id="project-name"
          required
          maxLength={100}
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
        <button type="submit">Create project</button>
      </form>
      <Message kind="error">{error}</Message>
      <Message kind="info">{info}</Message>
      {issued ? <IssuedKey issued={issued} onDone={() => setIssued(undefined)} /> : null}
      <ul class="cards" aria-label="Your projects">
        {list.map((project) => (
          <li key={project.id} class="card">
            <h2>
              <a href={projectHref(project.id)}>{project.name}</a>
            </h2>
            <p class="muted">
              Created <When value={project.created_at} /> · <span class="mono">{project.id}</span>
            </p>
            <div class="buttons">
              <a
                class="button secondary"
                href={projectHref(project.id)}
                aria-label={`API keys of ${project.name}`}
              >
                API keys
              </a>
              <a
                class="button secondary"
                href={projectHref(project.id, 'usage')}
                aria-label={`Usage of ${project.name}`}
              >
                Usage
              </a>
              {deletes ? (
                <button
                  type="button"
                  class="danger"
                  aria-label={`Delete project ${project.name}`}
                  onClick={() => setDeleting(project)}
                >
                  Delete…
                </button>
              ) : null}
            </div>
          </li>
        ))}
      </ul>
      <ListStates
        paged={paged}
        what="your projects"
        message={explain}
        empty={<p>No projects yet: name your first one above and create it.</p>}
      />
      {deleting ? (
        <DeleteDialog
          project={deleting}
          onClose={() => setDeleting(undefined)}
          onDeleted={async () => {
            setDeleting(undefined)
            setInfo(`Deleted project “${deleting.name}”. Its keys no longer work.`)
            await reload()
          }}
        />
      ) : null}
    </main>
  )
}

/** Deletion asks for the project's name, typed, before anything is deleted. */
function DeleteDialog({
  project,
  onClose,
  onDeleted,
}: {
  project: Project
  onClose: () => void
  onDeleted: () => void
}) {
  const [typed, setTyped] = useState('')
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const matches = typed === project.name
  return (
    <Dialog title={`Delete ${project.name}`} onClose={onClose}>
      <form
        class="stack"
        onSubmit={async (event) => {
          event.preventDefault()
          if (!matches) return
          setBusy(true)
          try {
            await projects.delete(project.id)
            onDeleted()
          } catch (failure) {
            setError(messageOf(failure))
          } finally {
            setBusy(false)
          }
        }}
      >
        <p>
          This deletes the project, what the server keeps of it and every one of its API keys. It cannot be
          undone.
        </p>
        <label for="confirm-name">
          Type the project's name, <strong class="mono">{project.name}</strong>, to confirm
        </label>
        <input
          id="confirm-name"
          autoComplete="off"
          value={typed}
          onInput={(event) => setTyped(event.currentTarget.value)}
        />
        <Message kind="error">{error}</Message>
        <DialogButtons onCancel={onClose}>
          <button type="submit" class="danger" disabled={!matches || busy}>
            Delete project
          </button>
        </DialogButtons>
      </form>
    </Dialog>
  )
}
