import { useState } from 'preact/hooks'
import { ApiError, messageOf, type Role, type RoleCalls } from '../../api'
import { Dialog, DialogButtons, DialogError, useDialogWork } from '../../components/Dialog'
import { entries, NamesField } from '../../components/Policies'

/**
 * A role's name and its permissions as fields: the permissions suggested from those the host
 * `declared`, and any other typed (a wildcard such as `reports:*`).
 */
export function RoleFields({
  idPrefix,
  nameLabel,
  name,
  onName,
  permissions,
  onPermissions,
  declared,
}: {
  idPrefix: string
  nameLabel: string
  name: string
  onName: (text: string) => void
  permissions: string
  onPermissions: (text: string) => void
  declared: readonly string[]
}) {
  return (
    <>
      <label for={`${idPrefix}-name`}>{nameLabel}</label>
      <input
        id={`${idPrefix}-name`}
        maxLength={100}
        value={name}
        onInput={(event) => onName(event.currentTarget.value)}
        placeholder="e.g. billing"
        autoComplete="off"
      />
      <NamesField
        id={`${idPrefix}-permissions`}
        label="Its permissions, comma-separated (wildcards such as reports:* allowed)"
        value={permissions}
        known={declared}
        onInput={onPermissions}
      />
    </>
  )
}

/**
 * Edits a role's name and permissions; only what is edited is sent (`PATCH`). A refusal (a name
 * another role has, an undeclared permission) stays in the dialog.
 */
export function EditRoleDialog({
  role,
  calls,
  declared,
  onClose,
  onSaved,
}: {
  role: Role
  calls: RoleCalls
  declared: readonly string[]
  onClose: () => void
  onSaved: (role: Role, changed: boolean) => void
}) {
  const [name, setName] = useState(role.name)
  const startPermissions = role.permissions.join(', ')
  const [permissions, setPermissions] = useState(startPermissions)
  const { error, setError, busy, run } = useDialogWork((failure) =>
    failure instanceof ApiError && failure.type === 'role_exists'
      ? `The project has a role “${name.trim()}” already: choose another name.`
      : messageOf(failure),
  )

  const save = () =>
    run(async () => {
      if (name.trim() === '') return setError('Name: a role needs a name.')
      const change = {
        ...(name.trim() === role.name ? {} : { name: name.trim() }),
        ...(permissions === startPermissions ? {} : { permissions: entries(permissions) }),
      }
      if (Object.keys(change).length === 0) return onSaved(role, false)
      onSaved(await calls.update(role.id, change), true)
    })

  return (
    <Dialog title={`Role “${role.name}”`} onClose={onClose}>
      <form
        class="stack"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          void save()
        }}
      >
        <p>Every key that holds the role gets the change, as every server process applies a revocation.</p>
        <RoleFields
          idPrefix="edit-role"
          nameLabel="Name (keys name the role by it)"
          name={name}
          onName={setName}
          permissions={permissions}
          onPermissions={setPermissions}
          declared={declared}
        />
        <DialogError id="edit-role-error">{error}</DialogError>
        <DialogButtons onCancel={onClose}>
          <button type="submit" disabled={busy}>
            Save role
          </button>
        </DialogButtons>
      </form>
    </Dialog>
  )
}

/** How many keys hold a role, as its refusal to be deleted (409 `role_in_use`) says. */
const holders = (failure: ApiError) =>
  Number(/^(\d+) keys? holds?\b/.exec(failure.message)?.[1] ?? Number.NaN)

/**
 * Asks before a role is deleted. While keys hold it the server refuses (409 `role_in_use`): the
 * dialog then says how many, and offers to take it from them in the same change ("Detach and
 * delete"). `onDeleted` gets how many keys it was taken from.
 */
export function DeleteRoleDialog({
  role,
  calls,
  onClose,
  onDeleted,
}: {
  role: Role
  calls: RoleCalls
  onClose: () => void
  onDeleted: (detached: number) => void
}) {
  const [held, setHeld] = useState<number | undefined>()
  const { error, setError, busy, run } = useDialogWork()
  const remove = (detach: boolean) =>
    run(async () => {
      try {
        const deleted = await calls.delete(role.id, detach)
        onDeleted(deleted.detached_keys.length)
      } catch (failure) {
        if (!(failure instanceof ApiError && failure.type === 'role_in_use')) throw failure
        const count = holders(failure)
        setHeld(Number.isNaN(count) ? 0 : count)
        setError(
          Number.isNaN(count)
            ? 'Keys hold this role: detach it from them to delete it.'
            : `${count} key${count === 1 ? ' holds' : 's hold'} this role: detach it from ${count === 1 ? 'it' : 'them'} to delete it. ${count === 1 ? 'That key keeps' : 'Those keys keep'} only what ${count === 1 ? 'its' : 'their'} own permissions and other roles allow.`,
        )
      }
    })
  return (
    <Dialog title={`Delete the role “${role.name}”`} onClose={onClose}>
      <div class="stack">
        <p>
          Keys that hold it can no longer do what it allows. A role that keys still hold is deleted only if it
          is detached from them at the same time.
        </p>
        <DialogError id="delete-role-error">{error}</DialogError>
        <DialogButtons onCancel={onClose}>
          {held === undefined ? (
            <button type="button" class="danger" disabled={busy} onClick={() => void remove(false)}>
              Delete role
            </button>
          ) : (
            <button type="button" class="danger" disabled={busy} onClick={() => void remove(true)}>
              Detach and delete
            </button>
          )}
        </DialogButtons>
      </div>
    </Dialog>
  )
}
