export { auditContext, requestId } from './audit-context.js'
export {
  type BodyProblem,
  bodyError,
  DEFAULT_BODY_LIMIT,
  type JsonBody,
  type JsonObjectBody,
  type ReadJsonAnyBodyOptions,
  type ReadJsonBodyOptions,
  readJsonBody,
  readJsonObjectBody,
} from './body.js'
export { clientAddress, type TrustedProxy } from './client-address.js'
export {
  answerClientError,
  answerConnect,
  clientErrorResponse,
  expectationFailedResponse,
  type NodeClientErrorSocket,
  requestTargetProblem,
} from './client-errors.js'
export { decodeCursor, encodeCursor, invalidCursor, type PagePosition } from './cursor.js'
export {
  type ApiKeyGuardOptions,
  apiKeyGuard,
  type BearerGuardOptions,
  bearerGuard,
  type DeveloperGuardOptions,
  developerGuard,
  elevatedGuard,
  type KeywardContext,
  type ProjectGuardOptions,
  projectGuard,
} from './guards.js'
export {
  type CreateProject,
  type CreateProjectInput,
  createKeyRoutes,
  type KeyRoutesOptions,
  type ListProjects,
  type ListProjectsInput,
  type ProjectPage,
} from './key-routes.js'
export {
  LINGERING_CLOSE_DEFAULTS,
  type LingeringCloseOptions,
  type LingeringServer,
  type LingeringSocket,
  lingeringClose,
} from './lingering-close.js'
export { type MemoryProject, MemoryProjects } from './memory-projects.js'
export { type NodeHeaders, nodeRequestHeader } from './node-headers.js'
export { type PageQuery, readPageQuery } from './page-query.js'
export { checkQueryNames } from './query-parameters.js'
export { errorResponse, jsonResponse, notFoundResponse, STORE_RETRY_AFTER_SECONDS } from './response.js'
export {
  type IdentityJson,
  type IssuedKeyJson,
  identityToJson,
  issuedKeyToJson,
  type KeyJson,
  keyToJson,
  type ProjectJson,
  type ProjectRecord,
  projectToJson,
  type RoleJson,
  type RolledKeyJson,
  revokedReason,
  roleToJson,
  rolledKeyToJson,
} from './shapes.js'
export {
  type NodeListenerRequest,
  type NodeListenerResponse,
  throttleListener,
} from './throttle-listener.js'
export type {
  BearerAuth,
  BodySource,
  ByteStream,
  Guard,
  GuardResult,
  KeyRoute,
  KeywardRequest,
  KeywardResponse,
} from './types.js'
export { MAX_USAGE_BUCKETS, readUsageQuery, type UsageRequestQuery } from './usage-query.js'
export type { VerifyKeyResult, VerifyRouteOptions } from './verify-route.js'
