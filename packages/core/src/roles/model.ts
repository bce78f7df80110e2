/** The longest name of a role, in characters. */
export const MAX_ROLE_NAME_LENGTH = 100

/** The most roles one key holds. */
export const MAX_KEY_ROLES = 50

/**
 * A role of a project: a name (1 to 100 characters, unique within the project) for a set of
 * declared permissions (wildcards among them), given to keys by name. A key may do what its own
 * permissions and its roles' allow; a change of a role reaches every key that holds it.
 */
export interface RoleRecord {
  readonly id: string
  readonly projectId: string
  readonly name: string
  readonly permissions: readonly string[]
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** A change of a role: what is given changes, what is absent stays. */
export interface RoleChange {
  readonly name?: string
  readonly permissions?: readonly string[]
}
