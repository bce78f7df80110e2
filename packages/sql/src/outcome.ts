/**
 * The error of a write whose outcome is not known: the database may have committed it or not
 * (the connection was lost, or the statement timed out, while its commit was under way). A
 * store never reports such a write as failed: the caller reads again before retrying.
 *
 * @example
 * ```ts
 * try {
 *   await keyward.deactivateKey(id)
 * } catch (error) {
 *   if (error instanceof SqlOutcomeUnknownError) await keyward.findKey(id) // did it commit?
 *   else throw error
 * }
 * ```
 */
export class SqlOutcomeUnknownError extends Error {
  constructor(options?: { readonly cause?: unknown }) {
    super(
      'The database did not say whether the write committed (the connection was lost or the statement ' +
        'timed out during its commit): read the record again before retrying.',
      options,
    )
    this.name = 'SqlOutcomeUnknownError'
  }
}
