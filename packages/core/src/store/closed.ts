import { echoValue } from '../errors/echo.js'
import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import type { KeyOwner } from './types.js'

/**
 * The error a store throws when a key would be created, re-activated or rolled for an owner
 * that the store's `deactivateOwnerKeys` closed (a deleted project or developer): 404
 * `not_found`, at `["path", "project_id"]` for a project, as when the project does not exist.
 *
 * @example
 * ```ts
 * if (this.closed.has(`${owner.type}:${owner.id}`)) throw ownerClosedError(owner)
 * ```
 */
export function ownerClosedError(owner: KeyOwner): KeywardError {
  const id = echoValue(owner.id)
  return owner.type === 'project'
    ? new KeywardError(
        ErrorType.notFound,
        `Project ${id} was not found: it was deleted, and a deleted project gets no keys.`,
        ['path', 'project_id'],
      )
    : new KeywardError(
        ErrorType.notFound,
        `Developer ${id} was not found: it was deleted, and a deleted developer gets no keys.`,
        [],
      )
}
