import { useCallback, useMemo, useState } from 'preact/hooks'
import { ApiError, messageOf, type Project, type Role, type RoleCalls, roles } from '../../api'
import { ListTable } from '../../components/ListTable'
import { Message } from '../../components/Message'
import { entries } from '../../components/Policies'
import { ProjectHeader } from '../../components/ProjectHeader'
import { usePaged } from '../../components/paged'
import { ListStates, When } from '../../components/States'
import { summary } from '../../format'
import { DeleteRoleDialog, EditRoleDialog, RoleFields } from './RoleDialogs'

/** A failure to list roles: a host whose store keeps none says so. */
const explainRoles = (failure: unknown) =>
  failure instanceof ApiError && (failure.status === 404 || failure.status === 405)
    ? 'This server keeps no roles.'
    : messageOf(failure)

/**
 * One project's roles: named sets of permissions that its API keys hold by name. Their creation
 * (a name, and permissions chosen from those the host `declared` or typed, wildcards such as
 * `reports:*` allowed), and a paged table in which each is edited or deleted.
 */
export function Roles({
  projectId,
  project,
  declared,
}: {
  projectId: string
  project: Project | undefined
  declared: readonly string[]
}) {
  const calls = useMemo(() => roles(projectId), [projectId])
  const fetchPage = useCallback((cursor: string | null) => calls.list(cursor), [calls])
  const paged = usePaged(fetchPage)
  const [info, setInfo] = useState('')
  const [open, setOpen] = useState<{ readonly role: Role; readonly dialog: 'edit' | 'delete' } | undefined>()
  const close = () => setOpen(undefined)
  const done = (sentence: string) => {
    setOpen(undefined)
    setInfo(sentence)
    void paged.reload()
  }

  return (
    <main id="main" class="stack">
      <ProjectHeader projectId={projectId} project={project} section="roles" />
      <p class="muted">
        A role is a named set of permissions, such as “billing” or “read-only”. Give it to keys by its name
        (on a key's page, or as you create one): a key may do what its own permissions and its roles allow,
        and a change of a role reaches every key that holds it.
      </p>
      <CreateRole
        calls={calls}
        declared={declared}
        onCreated={(role) => done(`Created the role “${role.name}”.`)}
      />
      <Message kind="info">{info}</Message>
      <ListTable caption="Roles" columns={['Name', 'Permissions', 'Updated', 'Actions']}>
        {paged.items.map((role) => (
          <tr key={role.id}>
            <td data-label="Name" class="mono wide">
              {role.name}
            </td>
            <td data-label="Permissions" class="mono">
              {summary(role.permissions, 'none')}
            </td>
            <td data-label="Updated">
              <When value={role.updated_at} />
            </td>
            <td data-label="Actions">
              <span class="actions">
                <button type="button" class="secondary" onClick={() => setOpen({ role, dialog: 'edit' })}>
                  Edit<span class="visually-hidden"> “{role.name}”</span>…
                </button>
                <button type="button" class="secondary" onClick={() => setOpen({ role, dialog: 'delete' })}>
                  Delete<span class="visually-hidden"> “{role.name}”</span>…
                </button>
              </span>
            </td>
          </tr>
        ))}
      </ListTable>
      <ListStates
        paged={paged}
        what="roles"
        message={explainRoles}
        empty={
          <p>
            No roles yet: name one above, such as “billing”, give it permissions, and create it. Then give it
            to keys by its name.
          </p>
        }
      />
      {open?.dialog === 'edit' ? (
        <EditRoleDialog
          role={open.role}
          calls={calls}
          declared={declared}
          onClose={close}
          onSaved={(role, changed) => done(changed ? `Updated the role “${role.name}”.` : 'Nothing changed.')}
        />
      ) : null}
      {open?.dialog === 'delete' ? (
        <DeleteRoleDialog
          role={open.role}
          calls={calls}
          onClose={close}
          onDeleted={(detached) =>
            done(
              detached === 0
                ? `Deleted the role “${open.role.name}”.`
                : `Deleted the role “${open.role.name}” and took it from ${detached} key${detached === 1 ? '' : 's'}.`,
            )
          }
        />
      ) : null}
    </main>
  )
}

/** The creation of a role: its name and permissions; a refusal shows under the form, which keeps what was typed. */
function CreateRole({
  calls,
  declared,
  onCreated,
}: {
  calls: RoleCalls
  declared: readonly string[]
  onCreated: (role: Role) => void
}) {
  const [name, setName] = useState('')
  const [permissions, setPermissions] = useState('')
  const [error, setError] = useState('')

  const create = async (event: Event) => {
    event.preventDefault()
    setError('')
    if (name.trim() === '') return setError('Name: give the role a name, e.g. billing.')
    try {
      const created = await calls.create({ name: name.trim(), permissions: entries(permissions) })
      setName('')
      setPermissions('')
      onCreated(created)
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.type === 'role_exists'
          ? `The project has a role “${name.trim()}” already: edit it in the list below.`
          : messageOf(failure),
      )
    }
  }

  return (
    <>
      <form class="inline-form" onSubmit={create} noValidate>
        <RoleFields
          idPrefix="new-role"
          nameLabel="Name of the new role"
          name={name}
          onName={setName}
          permissions={permissions}
          onPermissions={setPermissions}
          declared={declared}
        />
        <button type="submit">Create role</button>
      </form>
      <Message kind="error">{error}</Message>
    </>
  )
}
