/**
 * Keyward's framework-neutral core: key format, generation, hashing, display, errors,
 * the store interface with an in-memory store, the key service, client configuration, and
 * framework-neutral HTTP handling (guards and key-management endpoints) that the framework
 * adapters translate.
 *
 * @packageDocumentation
 */

export {
  type CheckClientSettingOptions,
  CLIENT_ENV,
  type ClientConfig,
  ClientConfigError,
  type ClientConfigFor,
  type ClientConfigProblem,
  type ClientEnv,
  type ClientMode,
  type ClientSetting,
  type ConsoleClientConfig,
  checkClientSetting,
  type ProjectClientConfig,
  type ReadClientConfigOptions,
  readClientConfig,
} from './client-config/index.js'
export {
  ERROR_STATUS,
  type ErrorBody,
  type ErrorDetail,
  ErrorType,
  echoValue,
  errorBody,
  isKeywardError,
  KeywardError,
  MAX_ECHO_LENGTH,
  toKeywardError,
} from './errors/index.js'
export { hashKey } from './hash/digest.js'
export {
  type BearerAuth,
  type BearerGuardOptions,
  type BodySource,
  type ByteStream,
  bearerGuard,
  type CreateProject,
  type CreateProjectInput,
  clientAddress,
  createKeyRoutes,
  DEFAULT_BODY_LIMIT,
  type DeveloperGuardOptions,
  developerGuard,
  elevatedGuard,
  errorResponse,
  type Guard,
  type GuardResult,
  type IssuedKeyJson,
  issuedKeyToJson,
  type JsonObjectBody,
  jsonResponse,
  type KeyJson,
  type KeyRoute,
  type KeyRoutesOptions,
  type KeywardContext,
  type KeywardRequest,
  type KeywardResponse,
  keyToJson,
  type NodeHeaders,
  nodeRequestHeader,
  type ProjectGuardOptions,
  type ProjectJson,
  type ProjectRecord,
  projectGuard,
  projectToJson,
  type ReadJsonBodyOptions,
  readJsonObjectBody,
  STORE_RETRY_AFTER_SECONDS,
  type TrustedProxy,
} from './http/index.js'
export {
  KEY_ALPHABET,
  KEY_LENGTH,
  KEY_PATTERN,
  KEY_PREFIX,
  KEY_PREFIX_LENGTH,
  KEY_RANDOM_LENGTH,
  KEY_SCAN_PATTERN,
  LEGACY_DEVELOPER_KEY_PREFIX,
  MIN_KEY_LENGTH,
} from './key/constants.js'
export { displayKey, keyPrefix } from './key/display.js'
export {
  checkKeyFormat,
  KEY_HEADER,
  type KeyFormatOptions,
  type KeyKind,
  type LegacyDeveloperKeyPolicy,
} from './key/format.js'
export { generateKey } from './key/generate.js'
export {
  type Limiter,
  type LimiterFactory,
  type LimiterSettings,
  type LimiterState,
  PROTECTION_DEFAULTS,
  type Protection,
  type ProtectionOptions,
  type RatedKey,
  type RateLimitPolicy,
} from './protection/index.js'
export type { VerificationCacheOptions, VerificationCacheStats } from './service/cache.js'
export type { AuthFailureReason, KeywardEvent, KeywardEventHook } from './service/events.js'
export {
  createKeyward,
  type IssuedKey,
  type IssueKeyOptions,
  type Keyward,
} from './service/keyward.js'
export { checkName, MAX_NAME_LENGTH } from './service/name.js'
export type { KeywardOptions } from './service/options.js'
export type {
  AuthContext,
  AuthContextFor,
  Credentials,
  DeveloperAuth,
  ElevatedAuth,
  KeyRef,
  ProjectAuth,
  Requirement,
} from './service/requirements.js'
export { KeyChangeHub } from './store/feed.js'
export { limitExceededError } from './store/limit.js'
export { MemoryKeyStore, type MemoryKeyStoreOptions } from './store/memory.js'
export type {
  KeyChangeEvent,
  KeyChangeFeed,
  KeyOwner,
  KeyOwnerSummary,
  KeyRecord,
  KeyStore,
} from './store/types.js'
