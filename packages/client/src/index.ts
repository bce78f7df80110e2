/**
 * A typed fetch client of the Keyward HTTP API, for Node 20+, Bun, Deno and browsers.
 *
 * @packageDocumentation
 */

export { ClientConfigError } from '@keyward/core/client'
export {
  type AuditListOptions,
  type BearerCallOptions,
  type CallOptions,
  type ClientOptions,
  createClient,
  type DeleteIdentityOptions,
  type IdentityListOptions,
  type KeyListOptions,
  type KeywardClient,
  type ListAllOptions,
  type ListOptions,
  type UsageOptions,
  type VerifyCallOptions,
} from './client.js'
export { type ClientFromEnvOptions, clientFromEnv } from './env.js'
export { KeywardApiError, KeywardNetworkError, type NetworkFailure } from './errors.js'
export type { FetchLike } from './request.js'
export type {
  AccessToken,
  ApiComponents,
  ApiKeyInfo,
  ApiOperations,
  ApiPaths,
  AuditEntry,
  AuditLog,
  ChangeCreditsBody,
  CreateApiKeyBody,
  CreatedApiKey,
  CreatedDeveloperKey,
  CreatedProject,
  CreateIdentityBody,
  CreateKeyBody,
  CreateProjectBody,
  CreditRefill,
  Deleted,
  DeletedIdentity,
  DeveloperKeyInfo,
  ErrorBody,
  Generation,
  Health,
  Identity,
  IdentityList,
  KeyInfoBase,
  KeyList,
  NameBody,
  PreviousKey,
  Project,
  ProjectList,
  RateLimit,
  RevokedReason,
  RolledApiKey,
  RolledDeveloperKey,
  RollKeyBody,
  SetKeyExpiryBody,
  UpdateApiKeyBody,
  UpdateIdentityBody,
  Usage,
  VerifyKeyBody,
  VerifyKeyResult,
} from './types.js'
