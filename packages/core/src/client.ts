/**
 * What the HTTP client shares with the core, and nothing more: the error types and their statuses,
 * the key headers and the checks of a client's settings. Every name here is also exported by
 * `@keyward/core`; this entry point leaves out the rest (the schemas, the stores, the services),
 * so that a page bundling the client stays small.
 *
 * @packageDocumentation
 */

export * from './client-config/index.js'
export type { ErrorDetail } from './errors/error.js'
export { ERROR_STATUS, ErrorType } from './errors/types.js'
export { KEY_HEADER, type KeyKind, type LegacyDeveloperKeyPolicy } from './key/format.js'
