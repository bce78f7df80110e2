/**
 * Keyward's framework-neutral core: key format, generation, hashing, display, errors,
 * the store interface with an in-memory store, the key service, client configuration, and
 * framework-neutral HTTP handling (guards, key-management endpoints and the secret-scanning
 * alert endpoint) that the framework adapters translate.
 *
 * @packageDocumentation
 */

export { type AuditFilter, matchesAuditFilter } from './audit/filter.js'
export {
  AUDIT_ACTIONS,
  AUDIT_GENESIS_HASH,
  type AuditAction,
  type AuditActor,
  type AuditChainHead,
  type AuditContext,
  type AuditEntry,
  type AuditEvent,
  type AuditPage,
  type AuditProblem,
  type AuditQuery,
  type AuditRecord,
  type AuditRowJson,
  type AuditTargetType,
  type AuditValues,
  type AuditVerification,
  type AuditWrite,
  auditRecordFromJson,
  auditRecordToJson,
  auditRowHash,
  type CreditAuditWrite,
  canonicalJson,
  chainAuditEntries,
  verifyAuditChain,
} from './audit/index.js'
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
export { checkCreditChange, checkRefill } from './credits/checks.js'
export { type CreditsLowAt, checkCreditsLowAt, keptCreditsLowAt, lowThreshold } from './credits/low-at.js'
export {
  type CreditHolder,
  changedCredits,
  creditState,
  creditsTooFewError,
  creditsTooManyError,
  creditsUnlimitedError,
  leasedCredits,
  MAX_COST,
  MAX_CREDITS,
  nextRefillAt,
  refilled,
  refillPeriodStart,
  withCredits,
} from './credits/model.js'
export { CREDITS_HEADER, type CreditOptions } from './credits/spender.js'
export type { CreditChange, CreditRefill, CreditState } from './credits/types.js'
export {
  checkKnownFields,
  ERROR_STATUS,
  type ErrorBody,
  type ErrorDetail,
  ErrorType,
  echoValue,
  errorBody,
  isKeywardError,
  KeywardError,
  type KnownFieldsWording,
  MAX_ECHO_LENGTH,
  nearestName,
  toKeywardError,
} from './errors/index.js'
export { hashKey } from './hash/digest.js'
export type { HashingOptions, Pepper } from './hash/pepper.js'
export {
  type ApiKeyGuardOptions,
  answerClientError,
  answerConnect,
  apiKeyGuard,
  auditContext,
  type BearerAuth,
  type BearerGuardOptions,
  type BodyProblem,
  type BodySource,
  type ByteStream,
  bearerGuard,
  bodyError,
  type CreateProject,
  type CreateProjectInput,
  checkQueryNames,
  clientAddress,
  clientErrorResponse,
  createKeyRoutes,
  DEFAULT_BODY_LIMIT,
  type DeveloperGuardOptions,
  decodeCursor,
  developerGuard,
  elevatedGuard,
  encodeCursor,
  errorResponse,
  expectationFailedResponse,
  type Guard,
  type GuardResult,
  type IdentityJson,
  type IssuedKeyJson,
  identityToJson,
  invalidCursor,
  issuedKeyToJson,
  type JsonBody,
  type JsonObjectBody,
  jsonResponse,
  type KeyJson,
  type KeyRoute,
  type KeyRoutesOptions,
  type KeywardContext,
  type KeywardRequest,
  type KeywardResponse,
  keyToJson,
  LINGERING_CLOSE_DEFAULTS,
  type LingeringCloseOptions,
  type LingeringServer,
  type LingeringSocket,
  type ListProjects,
  type ListProjectsInput,
  lingeringClose,
  type MemoryProject,
  MemoryProjects,
  type NodeClientErrorSocket,
  type NodeHeaders,
  type NodeListenerRequest,
  type NodeListenerResponse,
  nodeRequestHeader,
  notFoundResponse,
  type PagePosition,
  type PageQuery,
  type ProjectGuardOptions,
  type ProjectJson,
  type ProjectPage,
  type ProjectRecord,
  projectGuard,
  projectToJson,
  type ReadJsonAnyBodyOptions,
  type ReadJsonBodyOptions,
  type RoleJson,
  type RolledKeyJson,
  readJsonBody,
  readJsonObjectBody,
  readPageQuery,
  readUsageQuery,
  requestId,
  requestTargetProblem,
  revokedReason,
  roleToJson,
  rolledKeyToJson,
  STORE_RETRY_AFTER_SECONDS,
  type TrustedProxy,
  throttleListener,
  type UsageRequestQuery,
  type VerifyKeyResult,
  type VerifyRouteOptions,
} from './http/index.js'
export {
  checkExternalId,
  checkIdentityChange,
  checkNewIdentity,
  checkRateLimits,
  type GivenIdentity,
  type GivenIdentityChange,
} from './identities/checks.js'
export { MemoryIdentities, type MemoryKeyAccess } from './identities/memory.js'
export {
  type IdentityChange,
  type IdentityInfo,
  type IdentityRecord,
  MAX_EXTERNAL_ID_LENGTH,
  MAX_RATE_LIMIT,
  MAX_RATE_LIMIT_DURATION_MS,
  MAX_RATE_LIMITS,
  MIN_RATE_LIMIT_DURATION_MS,
  type NewIdentity,
  RATE_LIMIT_NAME_PATTERN,
  type StoredRateLimit,
} from './identities/model.js'
export type {
  IdentityAuditWrite,
  IdentityCreditChangeResult,
  IdentityDeletion,
  IdentityPage,
  IdentityPageQuery,
  IdentityStore,
} from './identities/store.js'
export { matchesIdentitySearch } from './identities/store.js'
export { IMPORT_HASH_FORMATS, type ImportHashFormat } from './import/digest.js'
export type { ImportRecord } from './import/record.js'
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
export { type ForeignKeyFormat, isImportedKey } from './key/foreign.js'
export {
  checkKeyFormat,
  KEY_HEADER,
  type KeyFormatOptions,
  type KeyKind,
  type LegacyDeveloperKeyPolicy,
} from './key/format.js'
export { generateKey } from './key/generate.js'
export { checkNotKeyShaped, holdsKeyMaterial } from './key/material.js'
export {
  type OpenApiDocument,
  type OpenApiDocumentOptions,
  openApiDocument,
} from './openapi/document.js'
export { API_SCHEMAS, type ApiSchemaName, type ApiValue } from './openapi/schemas.js'
export { checkBody } from './openapi/validate.js'
export type { PermissionCheck } from './policy/permission-check.js'
export {
  type KeyMetadata,
  type KeyPolicies,
  MAX_IP_ALLOWLIST,
  MAX_METADATA_BYTES,
  MAX_PERMISSIONS,
  PERMISSION_PATTERN,
  type PermissionRequirement,
  type PermissionRule,
  type StoredKeyPolicies,
  WILDCARD_PATTERN,
} from './policy/policies.js'
export {
  MAX_QUERY_DEPTH,
  MAX_QUERY_LENGTH,
  MAX_QUERY_TERMS,
  type PermissionQuery,
  PermissionQueryError,
  type QueryNode,
} from './policy/query.js'
export {
  type KeyRate,
  type Limiter,
  type LimiterFactory,
  type LimiterSettings,
  type LimiterState,
  PROTECTION_DEFAULTS,
  type Protection,
  type ProtectionOptions,
  type RatedKey,
  type RateLimitCosts,
  type RateLimitPolicy,
} from './protection/index.js'
export { MemoryRoles } from './roles/memory.js'
export { MAX_KEY_ROLES, MAX_ROLE_NAME_LENGTH, type RoleChange, type RoleRecord } from './roles/model.js'
export type { RoleAuditWrite, RoleDeletion, RolePage, RoleStore } from './roles/store.js'
export {
  createSecretScanningRoute,
  GITHUB_SECRET_SCANNING_KEYS_URL,
  SECRET_SCANNING_PATH,
  type SecretScanningFeedback,
  type SecretScanningFetch,
  type SecretScanningLabel,
  type SecretScanningMatch,
  type SecretScanningOptions,
} from './secret-scanning/index.js'
export type { ListAuditOptions } from './service/audit.js'
export type { VerificationCacheOptions, VerificationCacheStats } from './service/cache.js'
export type { AuthFailureReason, CreditsChanged, KeywardEvent, KeywardEventHook } from './service/events.js'
export type { KeyExpiryChange } from './service/expiry.js'
export type { CreateIdentityOptions, IdentityPageOptions } from './service/identities.js'
export type {
  ImportKeysOptions,
  ImportProblem,
  ImportProgress,
  ImportReport,
  KeywardImport,
} from './service/import.js'
export type { IssueKeyOptions, ListKeysPageOptions } from './service/keys.js'
export { createKeyward, type Keyward } from './service/keyward.js'
export type { LeakedKey, LeakedKeyResult } from './service/leaked.js'
export {
  DEFAULT_GRACE_SECONDS,
  type ExpiryFields,
  MAX_EXPIRES_IN_DAYS,
  MAX_GRACE_SECONDS,
  readExpiryFields,
} from './service/lifecycle.js'
export type { IssuedKey } from './service/mint.js'
export { checkName, MAX_NAME_LENGTH } from './service/name.js'
export type { KeywardOptions, UsageOptions } from './service/options.js'
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
export type { CreateRoleOptions, RoleHolder } from './service/roles.js'
export type { RolledKey, RollKeyOptions } from './service/roll.js'
export type { OwnerKeyPolicies } from './service/types.js'
export type { CountedKey, UsageCountsStats } from './service/usage-counts.js'
export { ownerClosedError } from './store/closed.js'
export { KeyChangeHub, ownerChangeHash } from './store/feed.js'
export {
  filterPrefix,
  hasKeyStatus,
  KEY_STATUSES,
  type KeyFilter,
  type KeyStatus,
  keyStatus,
  matchesKeyFilter,
} from './store/key-filter.js'
export { countsAgainstLimit, limitExceededError } from './store/limit.js'
export { MemoryKeyStore, type MemoryKeyStoreOptions } from './store/memory.js'
export { DEFAULT_PAGE_LIMIT, keyPage, MAX_PAGE_LIMIT } from './store/page.js'
export type {
  CreditChangeResult,
  CreditLease,
  CreditLeaseRequest,
  KeyChangeEvent,
  KeyChangeFeed,
  KeyOwner,
  KeyOwnerSummary,
  KeyPage,
  KeyPagePosition,
  KeyPageQuery,
  KeyRecord,
  KeyStore,
  KeyUse,
  RevokedReason,
  RolledRecords,
} from './store/types.js'
export {
  bucketStart,
  DEFAULT_USAGE_RETENTION,
  retentionStart,
  USAGE_GRANULARITIES,
  USAGE_OUTCOMES,
  type UsageBucket,
  type UsageCount,
  type UsageGranularity,
  type UsageOutcome,
  type UsageQuery,
  type UsageRetention,
} from './store/usage.js'
export { checkTelemetryOptions } from './telemetry/options.js'
export { type StoreTelemetry, telemetryErrorType, traceStoreCalls } from './telemetry/spans.js'
export type {
  KeywardTelemetry,
  TelemetryAttributes,
  TelemetryAttributeValue,
  TelemetrySpan,
  TelemetrySpanOptions,
  TelemetryTracer,
  TelemetryTracerProvider,
} from './telemetry/types.js'
export {
  type CreditRefills,
  type CreditRefillsOptions,
  createCreditRefills,
  REFILLS_PER_ROUND,
  type RefilledCredits,
  refillRound,
} from './webhooks/credit-refills.js'
export {
  MAX_REDELIVERY_RANGE_MS,
  type NewWebhookEndpoint,
  WebhookEndpoints,
  type WebhookEndpointsOptions,
  webhookSecret,
} from './webhooks/endpoints.js'
export { endpointDisabledRows, webhookEventsOf, webhookPayload } from './webhooks/events.js'
export {
  createExpiryNotices,
  type ExpiryNotices,
  type ExpiryNoticesOptions,
  MAX_EXPIRY_NOTICE_DAYS,
} from './webhooks/expiry.js'
export {
  webhookAttemptToJson,
  webhookEndpointToJson,
  webhookEndpointWithSecretToJson,
} from './webhooks/json.js'
export {
  deliveryEndpoint,
  endpointLimitError,
  endpointTakes,
  MemoryWebhooks,
  signingSecrets,
} from './webhooks/memory.js'
export {
  type ClaimedDelivery,
  type EndpointAuditWrite,
  type ExpiringKey,
  MAX_WEBHOOK_ENDPOINTS,
  WEBHOOK_EVENT_TYPES,
  type WebhookAttempt,
  type WebhookAttemptRecord,
  type WebhookEndpointChange,
  type WebhookEndpointRecord,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookOutcome,
  type WebhookRedelivery,
  type WebhookStore,
} from './webhooks/types.js'
