/**
 * `@keyward/console`: the administrative console, a web page where developers sign in with a
 * developer key and manage their projects and keys. Framework-neutral here; mount it with
 * `@keyward/console/hono`, `@keyward/console/express` or `@keyward/console/fastify`, next to the
 * key routes of the same framework's adapter.
 *
 * @packageDocumentation
 */
export {
  CONSOLE_HEADER,
  type ConsoleAnswer,
  type ConsoleOptions,
  type ConsoleRequestContext,
  type ConsoleResponse,
  createConsole,
  type KeywardConsole,
} from './console.js'
export { SECURITY_HEADERS } from './headers.js'
export {
  type ConsoleSession,
  type ConsoleSessionStore,
  type MemorySessionStoreOptions,
  memorySessionStore,
} from './sessions.js'
