/** What is wrong with a client setting: it is absent (or empty), or its value is unusable. */
export type ClientConfigProblem = 'missing' | 'malformed'

/**
 * A client setting (an environment variable such as `SERVICE_DEVELOPER_KEY`, or an option of
 * a client constructor) that is missing or malformed. The message names the setting and
 * says what is wrong; neither the message nor any other property holds its value.
 *
 * @example
 * ```ts
 * try {
 *   readClientConfig(env, { mode: 'console' })
 * } catch (err) {
 *   if (err instanceof ClientConfigError) {
 *     err.variable // 'SERVICE_DEVELOPER_KEY'
 *     err.problem  // 'missing'
 *   }
 * }
 * ```
 */
export class ClientConfigError extends Error {
  /** The environment variable (or, for a constructor, the option) that is wrong. */
  readonly variable: string
  /** Whether the setting is absent or its value is unusable. */
  readonly problem: ClientConfigProblem

  constructor(variable: string, problem: ClientConfigProblem, message: string) {
    super(message)
    this.name = 'ClientConfigError'
    this.variable = variable
    this.problem = problem
  }
}
