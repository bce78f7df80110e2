// Generated from Keyward's OpenAPI document by openapi-typescript (pnpm openapi:types).
// Do not edit: the client's types are read from here, and a test checks that it is current.
/** Every operation of the API, by path and method. */
export interface paths {
    readonly "/api/v1/auth/developer-keys": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** List the calling developer's keys, active or not, newest first, a page at a time; with `q` and `status`, those whose name or prefix matches, of one status. */
        readonly get: operations["listDeveloperKeys"];
        readonly put?: never;
        /** Create a developer key for the calling developer (at most 10 active). */
        readonly post: operations["createDeveloperKey"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/auth/developer-keys/{key_id}": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** One of the calling developer's keys, active or not (404 for any other). */
        readonly get: operations["getDeveloperKey"];
        readonly put?: never;
        readonly post?: never;
        /** Deactivate one of the calling developer's keys. */
        readonly delete: operations["deactivateDeveloperKey"];
        readonly options?: never;
        readonly head?: never;
        /** Set when one of the calling developer's keys expires (or never); not for a key in a roll's grace window. */
        readonly patch: operations["setDeveloperKeyExpiry"];
        readonly trace?: never;
    };
    readonly "/api/v1/projects": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** List the calling developer's projects, newest first, a page at a time. */
        readonly get: operations["listProjects"];
        readonly put?: never;
        /** Create a project, owned by the calling developer, with its default API key. */
        readonly post: operations["createProject"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/projects/{project_id}": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        readonly post?: never;
        /** Delete a project: its keys stop working. Needs the owner's developer key and a key of the project. */
        readonly delete: operations["deleteProject"];
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/projects/{project_id}/api-keys": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** List a project's API keys, active or not, newest first, a page at a time; with `q` and `status`, those whose name or prefix matches, of one status. */
        readonly get: operations["listApiKeys"];
        readonly put?: never;
        /** Create an API key for a project of the calling developer. */
        readonly post: operations["createApiKey"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/projects/{project_id}/api-keys/{key_id}": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** One of a project's API keys, active or not (404 for any other). */
        readonly get: operations["getApiKey"];
        readonly put?: never;
        readonly post?: never;
        /** Deactivate one of a project's API keys. */
        readonly delete: operations["deactivateApiKey"];
        readonly options?: never;
        readonly head?: never;
        /** Set when one of a project's API keys expires (or never; not for a key in a roll's grace window), its IP allowlist, permissions, metadata or low-credits threshold. */
        readonly patch: operations["setApiKeyExpiry"];
        readonly trace?: never;
    };
    readonly "/api/v1/projects/{project_id}/access-tokens": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** Exchange an API key of the project for a short-lived bearer token. */
        readonly post: operations["createAccessToken"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/generation/generations-v2": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /**
         * Create a generation in the token's project; the body is any JSON object.
         * Requires the permission `generations:write` of the API key that obtained the token, checked at each request against its current permissions and IP allowlist: a key without it is answered 403 `permission_denied`.
         */
        readonly post: operations["createGeneration"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/generation/generations-v2/{generation_id}": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        readonly post?: never;
        /**
         * Delete a generation of the token's project.
         * Requires the permission `generations:delete` of the API key that obtained the token, checked at each request against its current permissions and IP allowlist: a key without it is answered 403 `permission_denied`.
         */
        readonly delete: operations["deleteGeneration"];
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/auth/developer-keys/{key_id}/roll": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** Issue a new key for the same developer and name; the old one expires after the grace window. */
        readonly post: operations["rollDeveloperKey"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/projects/{project_id}/api-keys/{key_id}/roll": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** Issue a new key for the same project and name; the old one expires after the grace window. */
        readonly post: operations["rollApiKey"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/auth/developer-keys/{key_id}/activate": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** Re-activate one of the calling developer's keys, within the limit. */
        readonly post: operations["activateDeveloperKey"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/projects/{project_id}/api-keys/{key_id}/activate": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** Re-activate one of a project's API keys. */
        readonly post: operations["activateApiKey"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/auth/usage": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** Usage of the calling developer's keys: verifications per bucket (minute, hour or day), key and outcome. */
        readonly get: operations["getDeveloperUsage"];
        readonly put?: never;
        readonly post?: never;
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/projects/{project_id}/usage": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** Usage of a project's API keys: verifications per bucket (minute, hour or day), key and outcome. */
        readonly get: operations["getProjectUsage"];
        readonly put?: never;
        readonly post?: never;
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/projects/{project_id}/api-keys/{key_id}/credits": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** Set, add to or subtract from one of a project's API keys' credits, atomically; `set` may change the refill too (and clears a low-credits threshold the new credits could not have: none without a limit, none in percent without a refill). */
        readonly post: operations["changeApiKeyCredits"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/projects/{project_id}/identities": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** List a project's identities, newest first, a page at a time; with `q`, those whose `external_id` contains it; with `external_id`, the one identity of that id (an empty page when there is none). */
        readonly get: operations["listIdentities"];
        readonly put?: never;
        /** Create an identity in a project of the calling developer: a customer whose keys share its rate limits, credit pool and metadata. */
        readonly post: operations["createIdentity"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/projects/{project_id}/identities/{identity_id}": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** One of a project's identities (404 for any other). */
        readonly get: operations["getIdentity"];
        readonly put?: never;
        readonly post?: never;
        /** Delete an identity: 409 `identity_has_keys` while keys belong to it, unless `revoke_keys=true`, which revokes them in the same transaction. */
        readonly delete: operations["deleteIdentity"];
        readonly options?: never;
        readonly head?: never;
        /** Change an identity's metadata, rate limits or low-credits threshold (`null` clears); every key of it sees the change within the revocation bound. */
        readonly patch: operations["updateIdentity"];
        readonly trace?: never;
    };
    readonly "/api/v1/projects/{project_id}/identities/{identity_id}/keys": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** List an identity's API keys, active or not, newest first, a page at a time. */
        readonly get: operations["listIdentityKeys"];
        readonly put?: never;
        readonly post?: never;
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/projects/{project_id}/identities/{identity_id}/usage": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** Usage of an identity: the counts of the API keys that belong to it now, per bucket (minute, hour or day), key and outcome; the identity's total is their sum. */
        readonly get: operations["getIdentityUsage"];
        readonly put?: never;
        readonly post?: never;
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/projects/{project_id}/identities/{identity_id}/credits": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /**
         * Set, add to or subtract from the credit pool of one of a project's identities, atomically; `set` may change the refill too.
         * Every key of the identity spends from the pool besides its own credits, from both or from neither. A subtraction below zero, and `add` or `subtract` on an identity without a pool, are 422 and change nothing; an identity of another project is 404, as an unknown one. A `set` clears a low-credits threshold the new pool could not have (none without a pool, none in percent without a refill).
         */
        readonly post: operations["changeIdentityCredits"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/secret-scanning/github": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** Secret-scanning alerts in GitHub's partner format: each real key found is deactivated. */
        readonly post: operations["reportLeakedKeys"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/keys/verify": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** Verify an API key for another program, as the key's guard would: `valid` and, when refused, the guard's error type as `code`. A developer key verifies keys of its own projects (any other answers as unknown); a service token, those of any project. */
        readonly post: operations["verifyKey"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/audit": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** The calling developer's audit log (of their keys and projects), newest first, a page at a time; with `project_id`, one of their projects (404 for one that is not theirs); with `key_id`, `identity_id`, `action`, `from` and `to`, the rows about one key or one identity, of one action, in a range of time. */
        readonly get: operations["listAuditLog"];
        readonly put?: never;
        readonly post?: never;
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/openapi.json": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** This document. */
        readonly get: operations["getOpenApiDocument"];
        readonly put?: never;
        readonly post?: never;
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/healthz": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** Whether the server and its store are up. */
        readonly get: operations["getHealth"];
        readonly put?: never;
        readonly post?: never;
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/projects/{project_id}/roles": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** List a project's roles, newest first, a page at a time. */
        readonly get: operations["listRoles"];
        readonly put?: never;
        /** Create a role in a project of the calling developer: a name for a set of declared permissions (wildcards among them), given to API keys by name. */
        readonly post: operations["createRole"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/projects/{project_id}/roles/{role_id}": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** One of a project's roles (404 for any other). */
        readonly get: operations["getRole"];
        readonly put?: never;
        readonly post?: never;
        /** Delete a role: 409 `role_in_use` (naming how many keys hold it) while keys hold it, unless `detach=true`, which takes it from them in the same transaction. */
        readonly delete: operations["deleteRole"];
        readonly options?: never;
        readonly head?: never;
        /** Change a role's name or permissions; every key that holds it has the new permissions within the revocation bound. */
        readonly patch: operations["updateRole"];
        readonly trace?: never;
    };
    readonly "/api/v1/webhooks/endpoints": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** The calling developer's webhook endpoints, oldest first, without their secrets. */
        readonly get: operations["listWebhookEndpoints"];
        readonly put?: never;
        /** Register a webhook endpoint of the calling developer (at most 10), limited to some projects and event types; its signing secret is in this answer only. */
        readonly post: operations["createWebhookEndpoint"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/webhooks/endpoints/{endpoint_id}": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** One of the calling developer's webhook endpoints (404 for any other). */
        readonly get: operations["getWebhookEndpoint"];
        readonly put?: never;
        readonly post?: never;
        /** Delete a webhook endpoint and its pending deliveries. */
        readonly delete: operations["deleteWebhookEndpoint"];
        readonly options?: never;
        readonly head?: never;
        /** Change a webhook endpoint: its URL, description and filters, or enable it again (`disabled: false`). */
        readonly patch: operations["updateWebhookEndpoint"];
        readonly trace?: never;
    };
    readonly "/api/v1/webhooks/endpoints/{endpoint_id}/roll-secret": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** Give a webhook endpoint a new signing secret, shown in this answer only; the previous one signs too for `grace_seconds` (default one day). */
        readonly post: operations["rollWebhookSecret"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/webhooks/endpoints/{endpoint_id}/attempts": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /** A webhook endpoint's delivery log: its last 100 attempts, newest first, kept 30 days. */
        readonly get: operations["listWebhookAttempts"];
        readonly put?: never;
        readonly post?: never;
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/webhooks/endpoints/{endpoint_id}/redeliver": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** Send events to a webhook endpoint again, through the outbox as any delivery: one event (`event_id`), or those of a time range of at most 30 days (`from`, `to`) that it takes. */
        readonly post: operations["redeliverWebhook"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/api/v1/webhooks/endpoints/{endpoint_id}/test": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** Send a `webhook.test` event to a webhook endpoint (whatever its filters), through the outbox as any event. */
        readonly post: operations["sendWebhookTest"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
}
export interface webhooks {
    readonly "key.created": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** `key.created`, signed per Standard Webhooks (HMAC-SHA256, v1). */
        readonly post: {
            readonly parameters: {
                readonly query?: never;
                readonly header: {
                    readonly "webhook-id": string;
                    readonly "webhook-timestamp": string;
                    readonly "webhook-signature": string;
                };
                readonly path?: never;
                readonly cookie?: never;
            };
            readonly requestBody: {
                readonly content: {
                    readonly "application/json": components["schemas"]["WebhookPayload"];
                };
            };
            readonly responses: {
                /** Received: any 2xx. Anything else, or no answer in 10 s, is retried with backoff. */
                readonly 200: {
                    headers: {
                        readonly [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "key.revoked": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** `key.revoked`, signed per Standard Webhooks (HMAC-SHA256, v1). */
        readonly post: {
            readonly parameters: {
                readonly query?: never;
                readonly header: {
                    readonly "webhook-id": string;
                    readonly "webhook-timestamp": string;
                    readonly "webhook-signature": string;
                };
                readonly path?: never;
                readonly cookie?: never;
            };
            readonly requestBody: {
                readonly content: {
                    readonly "application/json": components["schemas"]["WebhookPayload"];
                };
            };
            readonly responses: {
                /** Received: any 2xx. Anything else, or no answer in 10 s, is retried with backoff. */
                readonly 200: {
                    headers: {
                        readonly [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "key.leaked": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** `key.leaked`, signed per Standard Webhooks (HMAC-SHA256, v1). */
        readonly post: {
            readonly parameters: {
                readonly query?: never;
                readonly header: {
                    readonly "webhook-id": string;
                    readonly "webhook-timestamp": string;
                    readonly "webhook-signature": string;
                };
                readonly path?: never;
                readonly cookie?: never;
            };
            readonly requestBody: {
                readonly content: {
                    readonly "application/json": components["schemas"]["WebhookPayload"];
                };
            };
            readonly responses: {
                /** Received: any 2xx. Anything else, or no answer in 10 s, is retried with backoff. */
                readonly 200: {
                    headers: {
                        readonly [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "key.rolled": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** `key.rolled`, signed per Standard Webhooks (HMAC-SHA256, v1). */
        readonly post: {
            readonly parameters: {
                readonly query?: never;
                readonly header: {
                    readonly "webhook-id": string;
                    readonly "webhook-timestamp": string;
                    readonly "webhook-signature": string;
                };
                readonly path?: never;
                readonly cookie?: never;
            };
            readonly requestBody: {
                readonly content: {
                    readonly "application/json": components["schemas"]["WebhookPayload"];
                };
            };
            readonly responses: {
                /** Received: any 2xx. Anything else, or no answer in 10 s, is retried with backoff. */
                readonly 200: {
                    headers: {
                        readonly [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "key.expiring": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** `key.expiring`, signed per Standard Webhooks (HMAC-SHA256, v1). */
        readonly post: {
            readonly parameters: {
                readonly query?: never;
                readonly header: {
                    readonly "webhook-id": string;
                    readonly "webhook-timestamp": string;
                    readonly "webhook-signature": string;
                };
                readonly path?: never;
                readonly cookie?: never;
            };
            readonly requestBody: {
                readonly content: {
                    readonly "application/json": components["schemas"]["WebhookPayload"];
                };
            };
            readonly responses: {
                /** Received: any 2xx. Anything else, or no answer in 10 s, is retried with backoff. */
                readonly 200: {
                    headers: {
                        readonly [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "key.expired": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** `key.expired`, signed per Standard Webhooks (HMAC-SHA256, v1). */
        readonly post: {
            readonly parameters: {
                readonly query?: never;
                readonly header: {
                    readonly "webhook-id": string;
                    readonly "webhook-timestamp": string;
                    readonly "webhook-signature": string;
                };
                readonly path?: never;
                readonly cookie?: never;
            };
            readonly requestBody: {
                readonly content: {
                    readonly "application/json": components["schemas"]["WebhookPayload"];
                };
            };
            readonly responses: {
                /** Received: any 2xx. Anything else, or no answer in 10 s, is retried with backoff. */
                readonly 200: {
                    headers: {
                        readonly [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "ratelimit.exceeded": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** `ratelimit.exceeded`, signed per Standard Webhooks (HMAC-SHA256, v1). */
        readonly post: {
            readonly parameters: {
                readonly query?: never;
                readonly header: {
                    readonly "webhook-id": string;
                    readonly "webhook-timestamp": string;
                    readonly "webhook-signature": string;
                };
                readonly path?: never;
                readonly cookie?: never;
            };
            readonly requestBody: {
                readonly content: {
                    readonly "application/json": components["schemas"]["WebhookPayload"];
                };
            };
            readonly responses: {
                /** Received: any 2xx. Anything else, or no answer in 10 s, is retried with backoff. */
                readonly 200: {
                    headers: {
                        readonly [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "credits.low": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** `credits.low`, signed per Standard Webhooks (HMAC-SHA256, v1). */
        readonly post: {
            readonly parameters: {
                readonly query?: never;
                readonly header: {
                    readonly "webhook-id": string;
                    readonly "webhook-timestamp": string;
                    readonly "webhook-signature": string;
                };
                readonly path?: never;
                readonly cookie?: never;
            };
            readonly requestBody: {
                readonly content: {
                    readonly "application/json": components["schemas"]["WebhookPayload"];
                };
            };
            readonly responses: {
                /** Received: any 2xx. Anything else, or no answer in 10 s, is retried with backoff. */
                readonly 200: {
                    headers: {
                        readonly [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "credits.exhausted": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** `credits.exhausted`, signed per Standard Webhooks (HMAC-SHA256, v1). */
        readonly post: {
            readonly parameters: {
                readonly query?: never;
                readonly header: {
                    readonly "webhook-id": string;
                    readonly "webhook-timestamp": string;
                    readonly "webhook-signature": string;
                };
                readonly path?: never;
                readonly cookie?: never;
            };
            readonly requestBody: {
                readonly content: {
                    readonly "application/json": components["schemas"]["WebhookPayload"];
                };
            };
            readonly responses: {
                /** Received: any 2xx. Anything else, or no answer in 10 s, is retried with backoff. */
                readonly 200: {
                    headers: {
                        readonly [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "credits.refilled": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** `credits.refilled`, signed per Standard Webhooks (HMAC-SHA256, v1). */
        readonly post: {
            readonly parameters: {
                readonly query?: never;
                readonly header: {
                    readonly "webhook-id": string;
                    readonly "webhook-timestamp": string;
                    readonly "webhook-signature": string;
                };
                readonly path?: never;
                readonly cookie?: never;
            };
            readonly requestBody: {
                readonly content: {
                    readonly "application/json": components["schemas"]["WebhookPayload"];
                };
            };
            readonly responses: {
                /** Received: any 2xx. Anything else, or no answer in 10 s, is retried with backoff. */
                readonly 200: {
                    headers: {
                        readonly [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "endpoint.disabled": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** `endpoint.disabled`, signed per Standard Webhooks (HMAC-SHA256, v1). */
        readonly post: {
            readonly parameters: {
                readonly query?: never;
                readonly header: {
                    readonly "webhook-id": string;
                    readonly "webhook-timestamp": string;
                    readonly "webhook-signature": string;
                };
                readonly path?: never;
                readonly cookie?: never;
            };
            readonly requestBody: {
                readonly content: {
                    readonly "application/json": components["schemas"]["WebhookPayload"];
                };
            };
            readonly responses: {
                /** Received: any 2xx. Anything else, or no answer in 10 s, is retried with backoff. */
                readonly 200: {
                    headers: {
                        readonly [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "webhook.test": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /** `webhook.test`, signed per Standard Webhooks (HMAC-SHA256, v1). */
        readonly post: {
            readonly parameters: {
                readonly query?: never;
                readonly header: {
                    readonly "webhook-id": string;
                    readonly "webhook-timestamp": string;
                    readonly "webhook-signature": string;
                };
                readonly path?: never;
                readonly cookie?: never;
            };
            readonly requestBody: {
                readonly content: {
                    readonly "application/json": components["schemas"]["WebhookPayload"];
                };
            };
            readonly responses: {
                /** Received: any 2xx. Anything else, or no answer in 10 s, is retried with backoff. */
                readonly 200: {
                    headers: {
                        readonly [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
}
/** The API's schemas, error responses, parameters. */
export interface components {
    schemas: {
        /** 1 to 100 characters, no control character, nothing shaped like a key (`ak_` or `dk_` followed by random characters: `key_shaped_value`). */
        readonly Name: string;
        /** Unknown fields are refused (`extra_forbidden`). Give `expires_at` or `expires_in_days`, not both. */
        readonly CreateKeyBody: {
            /** A descriptive name. */
            readonly name?: string | null;
            /**
             * Format: date-time
             * When the key stops working: an ISO 8601 time in the future.
             */
            readonly expires_at?: string;
            /** Days until the key stops working. */
            readonly expires_in_days?: number;
        };
        /** Unknown fields are refused (`extra_forbidden`). Give `expires_at` or `expires_in_days`, not both. Without `permissions` the key has every permission. Without `remaining` its credits are unlimited; `refill` needs `remaining`. Give `identity_id` or `external_id`, not both. */
        readonly CreateApiKeyBody: {
            /** A descriptive name. */
            readonly name?: string | null;
            /**
             * Format: date-time
             * When the key stops working: an ISO 8601 time in the future.
             */
            readonly expires_at?: string;
            /** Days until the key stops working. */
            readonly expires_in_days?: number;
            /** The addresses and CIDR ranges the key may be used from, at most 100; `null` for anywhere. IPv4 clients seen as IPv4-mapped IPv6 (`::ffff:203.0.113.7`) match IPv4 entries. */
            readonly ip_allowlist?: readonly string[] | null;
            /** The key's own permissions, among those the server declares, or wildcards; `null` for all of them (unless it holds roles: then none but its roles'). */
            readonly permissions?: readonly string[] | null;
            /** A JSON object of at most 4096 bytes handed to the server with the key; `null` for none. */
            readonly metadata?: {
                readonly [key: string]: unknown;
            } | null;
            /** The key's own named rate limits, at most 5, names distinct; `null` or `[]` for none. */
            readonly ratelimits?: readonly {
                /** Distinct among the limits of a key (or identity), what a route names to give it a cost. */
                readonly name: string;
                /** How many requests (or how much cost) each window allows. */
                readonly limit: number;
                /** The window, in milliseconds of whole seconds: from 1000 (1 s) to 86400000 (1 day). */
                readonly duration: number;
            }[] | null;
            /** The roles the key holds, by name (422 `role_unknown` at the name the project has none of); `null` for none. The key may do what its own permissions and its roles' allow. */
            readonly roles?: readonly string[] | null;
            /** The credits the key has left, `null` for unlimited. Each request costs its route's cost (default 1); credits that servers leased in blocks are spent already from the key's viewpoint. */
            readonly remaining?: number | null;
            /** How the credits come back; `null` for never. */
            readonly refill?: {
                /** The balance a refill brings the key up to. */
                readonly amount: number;
                readonly interval: "daily" | "monthly";
                /** Monthly only: the day of the month (default 1); past the month's end, its last day. */
                readonly day?: number;
            } | null;
            /** When the credits are low: `credits.low` is sent once per refill period when a lease leaves the balance at or below it. Needs `remaining`; `percent` needs `refill`. `null` for none. */
            readonly credits_low_at?: {
                /** Low at or below this many credits, 0 to 1000000000000. */
                readonly remaining: number;
            } | {
                /** Low at or below this share of the refill rule's amount, 1 to 99. */
                readonly percent: number;
            } | null;
            /** The identity the key joins, one of the project's (422 at `identity_id` for any other). */
            readonly identity_id?: string;
            /** The identity the key joins, by its `external_id`: created on first use, joined by every later key that names it. */
            readonly external_id?: string;
        };
        /** Any of: `expires_at` or `expires_in_days` (not both), `ip_allowlist`, `permissions`, `metadata`, `ratelimits` (`null` clears a policy), `credits_low_at` (checked against the key's credits as at creation; `null` clears it), `identity_id` (`null`: the key leaves its identity). Fields left out stay as they are. Unknown fields are refused (`extra_forbidden`). */
        readonly UpdateApiKeyBody: {
            /** When the key stops working, or `null`: it never expires. */
            readonly expires_at?: string | null;
            /** Days from now until the key stops working. */
            readonly expires_in_days?: number;
            /** The addresses and CIDR ranges the key may be used from, at most 100; `null` for anywhere. IPv4 clients seen as IPv4-mapped IPv6 (`::ffff:203.0.113.7`) match IPv4 entries. */
            readonly ip_allowlist?: readonly string[] | null;
            /** The key's own permissions, among those the server declares, or wildcards; `null` for all of them (unless it holds roles: then none but its roles'). */
            readonly permissions?: readonly string[] | null;
            /** A JSON object of at most 4096 bytes handed to the server with the key; `null` for none. */
            readonly metadata?: {
                readonly [key: string]: unknown;
            } | null;
            /** The key's own named rate limits, at most 5, names distinct; `null` or `[]` for none. */
            readonly ratelimits?: readonly {
                /** Distinct among the limits of a key (or identity), what a route names to give it a cost. */
                readonly name: string;
                /** How many requests (or how much cost) each window allows. */
                readonly limit: number;
                /** The window, in milliseconds of whole seconds: from 1000 (1 s) to 86400000 (1 day). */
                readonly duration: number;
            }[] | null;
            /** The roles the key holds, by name (422 `role_unknown` at the name the project has none of); `null` for none. The key may do what its own permissions and its roles' allow. */
            readonly roles?: readonly string[] | null;
            /** When the credits are low: `credits.low` is sent once per refill period when a lease leaves the balance at or below it. Needs `remaining`; `percent` needs `refill`. `null` for none. */
            readonly credits_low_at?: {
                /** Low at or below this many credits, 0 to 1000000000000. */
                readonly remaining: number;
            } | {
                /** Low at or below this share of the refill rule's amount, 1 to 99. */
                readonly percent: number;
            } | null;
            /** The identity the key joins, or `null`: it leaves its identity. */
            readonly identity_id?: string | null;
        };
        /** Acts on the stored balance; credits that servers leased are spent already. `refill` goes with `set` only (left out: unchanged). Unknown fields are refused (`extra_forbidden`). */
        readonly ChangeCreditsBody: {
            readonly op: "set" | "add" | "subtract";
            /** `set`: the new balance (`null`: unlimited); `add`, `subtract`: how many credits, at least 1. A subtraction below zero is refused (422) and changes nothing. */
            readonly amount: number | null;
            /** How the credits come back; `null` for never. */
            readonly refill?: {
                /** The balance a refill brings the key up to. */
                readonly amount: number;
                readonly interval: "daily" | "monthly";
                /** Monthly only: the day of the month (default 1); past the month's end, its last day. */
                readonly day?: number;
            } | null;
        };
        /** Unknown fields are refused (`extra_forbidden`). A second identity with the same `external_id` in the project is 409 `identity_exists`. `refill` needs `remaining`. */
        readonly CreateIdentityBody: {
            /** The host's own id for its customer: 1 to 255 characters, unique within the project, no control character, nothing shaped like a key (`key_shaped_value`). It never changes. */
            readonly external_id: string;
            /** A JSON object of at most 4096 bytes handed to the server with the key; `null` for none. */
            readonly metadata?: {
                readonly [key: string]: unknown;
            } | null;
            /** At most 5 named limits shared by every key of the identity; `null` or `[]` for none. */
            readonly ratelimits?: readonly {
                /** Distinct among the limits of a key (or identity), what a route names to give it a cost. */
                readonly name: string;
                /** How many requests (or how much cost) each window allows. */
                readonly limit: number;
                /** The window, in milliseconds of whole seconds: from 1000 (1 s) to 86400000 (1 day). */
                readonly duration: number;
            }[] | null;
            /** The credit pool every key of the identity spends from; `null` (or absent) for none. A key with credits of its own spends from both. */
            readonly remaining?: number | null;
            /** How the credits come back; `null` for never. */
            readonly refill?: {
                /** The balance a refill brings the key up to. */
                readonly amount: number;
                readonly interval: "daily" | "monthly";
                /** Monthly only: the day of the month (default 1); past the month's end, its last day. */
                readonly day?: number;
            } | null;
            /** When the credits are low: `credits.low` is sent once per refill period when a lease leaves the balance at or below it. Needs `remaining`; `percent` needs `refill`. `null` for none. */
            readonly credits_low_at?: {
                /** Low at or below this many credits, 0 to 1000000000000. */
                readonly remaining: number;
            } | {
                /** Low at or below this share of the refill rule's amount, 1 to 99. */
                readonly percent: number;
            } | null;
            /** The roles the identity holds, by name (422 `role_unknown` at the name the project has none of); `null` for none. Every key of the identity may do what they allow, besides its own permissions and roles. */
            readonly roles?: readonly string[] | null;
        };
        /** Any of `metadata`, `ratelimits`, `roles` and `credits_low_at` (checked against the pool as at creation) (`null` clears); fields left out stay as they are. `external_id` never changes, and the credit pool changes through its own operation: both are refused (422). Unknown fields are refused (`extra_forbidden`). */
        readonly UpdateIdentityBody: {
            /** A JSON object of at most 4096 bytes handed to the server with the key; `null` for none. */
            readonly metadata?: {
                readonly [key: string]: unknown;
            } | null;
            /** At most 5 named limits shared by every key of the identity; `null` or `[]` for none. */
            readonly ratelimits?: readonly {
                /** Distinct among the limits of a key (or identity), what a route names to give it a cost. */
                readonly name: string;
                /** How many requests (or how much cost) each window allows. */
                readonly limit: number;
                /** The window, in milliseconds of whole seconds: from 1000 (1 s) to 86400000 (1 day). */
                readonly duration: number;
            }[] | null;
            /** The roles the identity holds, by name (422 `role_unknown` at the name the project has none of); `null` for none. Every key of the identity may do what they allow, besides its own permissions and roles. */
            readonly roles?: readonly string[] | null;
            /** When the credits are low: `credits.low` is sent once per refill period when a lease leaves the balance at or below it. Needs `remaining`; `percent` needs `refill`. `null` for none. */
            readonly credits_low_at?: {
                /** Low at or below this many credits, 0 to 1000000000000. */
                readonly remaining: number;
            } | {
                /** Low at or below this share of the refill rule's amount, 1 to 99. */
                readonly percent: number;
            } | null;
        };
        /** At most `limit` per `duration`, counted in fixed windows. Each request costs 1 unless its route gives the limit another cost. An identity's limits are shared by all its keys. */
        readonly RateLimit: {
            /** Distinct among the limits of a key (or identity), what a route names to give it a cost. */
            readonly name: string;
            /** How many requests (or how much cost) each window allows. */
            readonly limit: number;
            /** The window, in milliseconds of whole seconds: from 1000 (1 s) to 86400000 (1 day). */
            readonly duration: number;
        };
        /** A permission query: a string such as `reports:read and (billing:read or admin)` (names, `and`, `or`, parentheses; `and` binds tighter than `or`), or `{"and": [...]}` / `{"or": [...]}` of queries, at most 8 levels deep, 1000 characters per string, declared permissions only. Wildcards (`reports:*`, `*`) are granted to keys, never required. */
        readonly PermissionQuery: string | {
            /** Queries, every one of which the key must satisfy. */
            readonly and: readonly unknown[];
        } | {
            /** Queries, at least one of which the key must satisfy. */
            readonly or: readonly unknown[];
        };
        /** Refills at 00:00 UTC, daily or on a day of the month. A refill sets the balance to `amount` when it is below, once per period, and leaves a higher balance (credits added) as it is. */
        readonly CreditRefill: {
            /** The balance a refill brings the key up to. */
            readonly amount: number;
            readonly interval: "daily" | "monthly";
            /** Monthly only: the day of the month (default 1); past the month's end, its last day. */
            readonly day?: number;
        };
        /** Unknown fields are refused (`extra_forbidden`). */
        readonly CreateProjectBody: {
            /** 1 to 100 characters, no control character, nothing shaped like a key (`ak_` or `dk_` followed by random characters: `key_shaped_value`). */
            readonly name: string;
        };
        /** Unknown fields are refused (`extra_forbidden`). */
        readonly RollKeyBody: {
            /** How long the old key keeps working, in seconds (default 86400; 0 stops it at once). */
            readonly grace_seconds?: number;
        };
        /** No fields: send no body, or `{}`. */
        readonly NoFieldsBody: Record<string, never>;
        /** Give `expires_at` (a time, or `null` for never) or `expires_in_days`, not both. Unknown fields are refused (`extra_forbidden`). */
        readonly SetKeyExpiryBody: {
            /** When the key stops working, or `null`: it never expires. */
            readonly expires_at?: string | null;
            /** Days from now until the key stops working. */
            readonly expires_in_days?: number;
        };
        readonly DeveloperKey: {
            /** The key record's id: what deactivation, roll and activation take. */
            readonly id: string;
            /** The first 8 characters of the key: for display, not unique. */
            readonly key_prefix: string;
            /** `key_prefix` followed by `...`. */
            readonly display: string;
            readonly name: string | null;
            readonly developer_id: string;
            /** Only active keys authenticate. */
            readonly active: boolean;
            /**
             * Format: date-time
             * When the key was issued.
             */
            readonly created_at: string;
            readonly expires_at?: string | null;
            readonly last_used_at?: string | null;
            /** Older than the rotation period. */
            readonly rotation_due?: boolean;
            /** Why the key no longer works or is on its way out: `leaked` (deactivated by a secret-scanning report), `revoked` (any other deactivation), `rolled` (replaced by a roll; it works until `expires_at`), `null` for an active key. */
            readonly revoked_reason?: "leaked" | "revoked" | "rolled" | null;
        };
        readonly ApiKey: {
            /** The key record's id: what deactivation, roll and activation take. */
            readonly id: string;
            /** The first 8 characters of the key: for display, not unique. */
            readonly key_prefix: string;
            /** `key_prefix` followed by `...`. */
            readonly display: string;
            readonly name: string | null;
            readonly project_id: string;
            /** Only active keys authenticate. */
            readonly active: boolean;
            /**
             * Format: date-time
             * When the key was issued.
             */
            readonly created_at: string;
            readonly expires_at?: string | null;
            readonly last_used_at?: string | null;
            /** Older than the rotation period. */
            readonly rotation_due?: boolean;
            /** Why the key no longer works or is on its way out: `leaked` (deactivated by a secret-scanning report), `revoked` (any other deactivation), `rolled` (replaced by a roll; it works until `expires_at`), `null` for an active key. */
            readonly revoked_reason?: "leaked" | "revoked" | "rolled" | null;
            /** The addresses and CIDR ranges the key may be used from, at most 100; `null` for anywhere. IPv4 clients seen as IPv4-mapped IPv6 (`::ffff:203.0.113.7`) match IPv4 entries. */
            readonly ip_allowlist?: readonly string[] | null;
            /** The key's own permissions, among those the server declares, or wildcards; `null` for all of them (unless it holds roles: then none but its roles'). */
            readonly permissions?: readonly string[] | null;
            /** A JSON object of at most 4096 bytes handed to the server with the key; `null` for none. */
            readonly metadata?: {
                readonly [key: string]: unknown;
            } | null;
            /** The key's own named rate limits; `[]` for none. */
            readonly ratelimits?: readonly {
                /** Distinct among the limits of a key (or identity), what a route names to give it a cost. */
                readonly name: string;
                /** How many requests (or how much cost) each window allows. */
                readonly limit: number;
                /** The window, in milliseconds of whole seconds: from 1000 (1 s) to 86400000 (1 day). */
                readonly duration: number;
            }[];
            /** The credits the key has left, `null` for unlimited. Each request costs its route's cost (default 1); credits that servers leased in blocks are spent already from the key's viewpoint. */
            readonly remaining?: number | null;
            /** How the credits come back; `null` for never. */
            readonly refill?: {
                /** The balance a refill brings the key up to. */
                readonly amount: number;
                readonly interval: "daily" | "monthly";
                /** Monthly only: the day of the month (default 1); past the month's end, its last day. */
                readonly day?: number;
            } | null;
            /** When the credits are low: `credits.low` is sent once per refill period when a lease leaves the balance at or below it. Needs `remaining`; `percent` needs `refill`. `null` for none. */
            readonly credits_low_at?: {
                /** Low at or below this many credits, 0 to 1000000000000. */
                readonly remaining: number;
            } | {
                /** Low at or below this share of the refill rule's amount, 1 to 99. */
                readonly percent: number;
            } | null;
            /** The identity the key belongs to (its id); `null` for none. */
            readonly identity_id?: string | null;
            /** The roles the key holds, by name (422 `role_unknown` at the name the project has none of); `null` for none. The key may do what its own permissions and its roles' allow. */
            readonly roles?: readonly string[] | null;
        };
        readonly CreatedDeveloperKey: {
            /** The key record's id: what deactivation, roll and activation take. */
            readonly id: string;
            /** The full key, shown this once and never again. */
            readonly key: string;
            /** The first 8 characters of the key: for display, not unique. */
            readonly key_prefix: string;
            /** `key_prefix` followed by `...`. */
            readonly display: string;
            readonly name: string | null;
            readonly developer_id: string;
            /** Only active keys authenticate. */
            readonly active: boolean;
            /**
             * Format: date-time
             * When the key was issued.
             */
            readonly created_at: string;
            readonly expires_at?: string | null;
            readonly last_used_at?: string | null;
            /** Older than the rotation period. */
            readonly rotation_due?: boolean;
            /** Why the key no longer works or is on its way out: `leaked` (deactivated by a secret-scanning report), `revoked` (any other deactivation), `rolled` (replaced by a roll; it works until `expires_at`), `null` for an active key. */
            readonly revoked_reason?: "leaked" | "revoked" | "rolled" | null;
        };
        readonly CreatedApiKey: {
            /** The key record's id: what deactivation, roll and activation take. */
            readonly id: string;
            /** The full key, shown this once and never again. */
            readonly key: string;
            /** The first 8 characters of the key: for display, not unique. */
            readonly key_prefix: string;
            /** `key_prefix` followed by `...`. */
            readonly display: string;
            readonly name: string | null;
            readonly project_id: string;
            /** Only active keys authenticate. */
            readonly active: boolean;
            /**
             * Format: date-time
             * When the key was issued.
             */
            readonly created_at: string;
            readonly expires_at?: string | null;
            readonly last_used_at?: string | null;
            /** Older than the rotation period. */
            readonly rotation_due?: boolean;
            /** Why the key no longer works or is on its way out: `leaked` (deactivated by a secret-scanning report), `revoked` (any other deactivation), `rolled` (replaced by a roll; it works until `expires_at`), `null` for an active key. */
            readonly revoked_reason?: "leaked" | "revoked" | "rolled" | null;
            /** The addresses and CIDR ranges the key may be used from, at most 100; `null` for anywhere. IPv4 clients seen as IPv4-mapped IPv6 (`::ffff:203.0.113.7`) match IPv4 entries. */
            readonly ip_allowlist?: readonly string[] | null;
            /** The key's own permissions, among those the server declares, or wildcards; `null` for all of them (unless it holds roles: then none but its roles'). */
            readonly permissions?: readonly string[] | null;
            /** A JSON object of at most 4096 bytes handed to the server with the key; `null` for none. */
            readonly metadata?: {
                readonly [key: string]: unknown;
            } | null;
            /** The key's own named rate limits; `[]` for none. */
            readonly ratelimits?: readonly {
                /** Distinct among the limits of a key (or identity), what a route names to give it a cost. */
                readonly name: string;
                /** How many requests (or how much cost) each window allows. */
                readonly limit: number;
                /** The window, in milliseconds of whole seconds: from 1000 (1 s) to 86400000 (1 day). */
                readonly duration: number;
            }[];
            /** The credits the key has left, `null` for unlimited. Each request costs its route's cost (default 1); credits that servers leased in blocks are spent already from the key's viewpoint. */
            readonly remaining?: number | null;
            /** How the credits come back; `null` for never. */
            readonly refill?: {
                /** The balance a refill brings the key up to. */
                readonly amount: number;
                readonly interval: "daily" | "monthly";
                /** Monthly only: the day of the month (default 1); past the month's end, its last day. */
                readonly day?: number;
            } | null;
            /** When the credits are low: `credits.low` is sent once per refill period when a lease leaves the balance at or below it. Needs `remaining`; `percent` needs `refill`. `null` for none. */
            readonly credits_low_at?: {
                /** Low at or below this many credits, 0 to 1000000000000. */
                readonly remaining: number;
            } | {
                /** Low at or below this share of the refill rule's amount, 1 to 99. */
                readonly percent: number;
            } | null;
            /** The identity the key belongs to (its id); `null` for none. */
            readonly identity_id?: string | null;
            /** The roles the key holds, by name (422 `role_unknown` at the name the project has none of); `null` for none. The key may do what its own permissions and its roles' allow. */
            readonly roles?: readonly string[] | null;
        };
        readonly RolledDeveloperKey: {
            /** The key record's id: what deactivation, roll and activation take. */
            readonly id: string;
            /** The full key, shown this once and never again. */
            readonly key: string;
            /** The first 8 characters of the key: for display, not unique. */
            readonly key_prefix: string;
            /** `key_prefix` followed by `...`. */
            readonly display: string;
            readonly name: string | null;
            readonly developer_id: string;
            /** Only active keys authenticate. */
            readonly active: boolean;
            /**
             * Format: date-time
             * When the key was issued.
             */
            readonly created_at: string;
            readonly expires_at?: string | null;
            readonly last_used_at?: string | null;
            /** Older than the rotation period. */
            readonly rotation_due?: boolean;
            /** Why the key no longer works or is on its way out: `leaked` (deactivated by a secret-scanning report), `revoked` (any other deactivation), `rolled` (replaced by a roll; it works until `expires_at`), `null` for an active key. */
            readonly revoked_reason?: "leaked" | "revoked" | "rolled" | null;
            /** The key that was rolled: its id and its new expiry (the grace window). */
            readonly previous_key: {
                readonly id: string;
                /**
                 * Format: date-time
                 * When the old key stops working.
                 */
                readonly expires_at: string;
            };
        };
        readonly RolledApiKey: {
            /** The key record's id: what deactivation, roll and activation take. */
            readonly id: string;
            /** The full key, shown this once and never again. */
            readonly key: string;
            /** The first 8 characters of the key: for display, not unique. */
            readonly key_prefix: string;
            /** `key_prefix` followed by `...`. */
            readonly display: string;
            readonly name: string | null;
            readonly project_id: string;
            /** Only active keys authenticate. */
            readonly active: boolean;
            /**
             * Format: date-time
             * When the key was issued.
             */
            readonly created_at: string;
            readonly expires_at?: string | null;
            readonly last_used_at?: string | null;
            /** Older than the rotation period. */
            readonly rotation_due?: boolean;
            /** Why the key no longer works or is on its way out: `leaked` (deactivated by a secret-scanning report), `revoked` (any other deactivation), `rolled` (replaced by a roll; it works until `expires_at`), `null` for an active key. */
            readonly revoked_reason?: "leaked" | "revoked" | "rolled" | null;
            /** The addresses and CIDR ranges the key may be used from, at most 100; `null` for anywhere. IPv4 clients seen as IPv4-mapped IPv6 (`::ffff:203.0.113.7`) match IPv4 entries. */
            readonly ip_allowlist?: readonly string[] | null;
            /** The key's own permissions, among those the server declares, or wildcards; `null` for all of them (unless it holds roles: then none but its roles'). */
            readonly permissions?: readonly string[] | null;
            /** A JSON object of at most 4096 bytes handed to the server with the key; `null` for none. */
            readonly metadata?: {
                readonly [key: string]: unknown;
            } | null;
            /** The key's own named rate limits; `[]` for none. */
            readonly ratelimits?: readonly {
                /** Distinct among the limits of a key (or identity), what a route names to give it a cost. */
                readonly name: string;
                /** How many requests (or how much cost) each window allows. */
                readonly limit: number;
                /** The window, in milliseconds of whole seconds: from 1000 (1 s) to 86400000 (1 day). */
                readonly duration: number;
            }[];
            /** The credits the key has left, `null` for unlimited. Each request costs its route's cost (default 1); credits that servers leased in blocks are spent already from the key's viewpoint. */
            readonly remaining?: number | null;
            /** How the credits come back; `null` for never. */
            readonly refill?: {
                /** The balance a refill brings the key up to. */
                readonly amount: number;
                readonly interval: "daily" | "monthly";
                /** Monthly only: the day of the month (default 1); past the month's end, its last day. */
                readonly day?: number;
            } | null;
            /** When the credits are low: `credits.low` is sent once per refill period when a lease leaves the balance at or below it. Needs `remaining`; `percent` needs `refill`. `null` for none. */
            readonly credits_low_at?: {
                /** Low at or below this many credits, 0 to 1000000000000. */
                readonly remaining: number;
            } | {
                /** Low at or below this share of the refill rule's amount, 1 to 99. */
                readonly percent: number;
            } | null;
            /** The identity the key belongs to (its id); `null` for none. */
            readonly identity_id?: string | null;
            /** The roles the key holds, by name (422 `role_unknown` at the name the project has none of); `null` for none. The key may do what its own permissions and its roles' allow. */
            readonly roles?: readonly string[] | null;
            /** The key that was rolled: its id and its new expiry (the grace window). */
            readonly previous_key: {
                readonly id: string;
                /**
                 * Format: date-time
                 * When the old key stops working.
                 */
                readonly expires_at: string;
            };
        };
        readonly DeveloperKeyList: {
            readonly keys: readonly {
                /** The key record's id: what deactivation, roll and activation take. */
                readonly id: string;
                /** The first 8 characters of the key: for display, not unique. */
                readonly key_prefix: string;
                /** `key_prefix` followed by `...`. */
                readonly display: string;
                readonly name: string | null;
                readonly developer_id: string;
                /** Only active keys authenticate. */
                readonly active: boolean;
                /**
                 * Format: date-time
                 * When the key was issued.
                 */
                readonly created_at: string;
                readonly expires_at?: string | null;
                readonly last_used_at?: string | null;
                /** Older than the rotation period. */
                readonly rotation_due?: boolean;
                /** Why the key no longer works or is on its way out: `leaked` (deactivated by a secret-scanning report), `revoked` (any other deactivation), `rolled` (replaced by a roll; it works until `expires_at`), `null` for an active key. */
                readonly revoked_reason?: "leaked" | "revoked" | "rolled" | null;
            }[];
            /** Pass it as `?cursor=` for the next page; `null` on the last page. Opaque: send it back as it is. */
            readonly next_cursor: string | null;
        };
        readonly ApiKeyList: {
            readonly keys: readonly {
                /** The key record's id: what deactivation, roll and activation take. */
                readonly id: string;
                /** The first 8 characters of the key: for display, not unique. */
                readonly key_prefix: string;
                /** `key_prefix` followed by `...`. */
                readonly display: string;
                readonly name: string | null;
                readonly project_id: string;
                /** Only active keys authenticate. */
                readonly active: boolean;
                /**
                 * Format: date-time
                 * When the key was issued.
                 */
                readonly created_at: string;
                readonly expires_at?: string | null;
                readonly last_used_at?: string | null;
                /** Older than the rotation period. */
                readonly rotation_due?: boolean;
                /** Why the key no longer works or is on its way out: `leaked` (deactivated by a secret-scanning report), `revoked` (any other deactivation), `rolled` (replaced by a roll; it works until `expires_at`), `null` for an active key. */
                readonly revoked_reason?: "leaked" | "revoked" | "rolled" | null;
                /** The addresses and CIDR ranges the key may be used from, at most 100; `null` for anywhere. IPv4 clients seen as IPv4-mapped IPv6 (`::ffff:203.0.113.7`) match IPv4 entries. */
                readonly ip_allowlist?: readonly string[] | null;
                /** The key's own permissions, among those the server declares, or wildcards; `null` for all of them (unless it holds roles: then none but its roles'). */
                readonly permissions?: readonly string[] | null;
                /** A JSON object of at most 4096 bytes handed to the server with the key; `null` for none. */
                readonly metadata?: {
                    readonly [key: string]: unknown;
                } | null;
                /** The key's own named rate limits; `[]` for none. */
                readonly ratelimits?: readonly {
                    /** Distinct among the limits of a key (or identity), what a route names to give it a cost. */
                    readonly name: string;
                    /** How many requests (or how much cost) each window allows. */
                    readonly limit: number;
                    /** The window, in milliseconds of whole seconds: from 1000 (1 s) to 86400000 (1 day). */
                    readonly duration: number;
                }[];
                /** The credits the key has left, `null` for unlimited. Each request costs its route's cost (default 1); credits that servers leased in blocks are spent already from the key's viewpoint. */
                readonly remaining?: number | null;
                /** How the credits come back; `null` for never. */
                readonly refill?: {
                    /** The balance a refill brings the key up to. */
                    readonly amount: number;
                    readonly interval: "daily" | "monthly";
                    /** Monthly only: the day of the month (default 1); past the month's end, its last day. */
                    readonly day?: number;
                } | null;
                /** When the credits are low: `credits.low` is sent once per refill period when a lease leaves the balance at or below it. Needs `remaining`; `percent` needs `refill`. `null` for none. */
                readonly credits_low_at?: {
                    /** Low at or below this many credits, 0 to 1000000000000. */
                    readonly remaining: number;
                } | {
                    /** Low at or below this share of the refill rule's amount, 1 to 99. */
                    readonly percent: number;
                } | null;
                /** The identity the key belongs to (its id); `null` for none. */
                readonly identity_id?: string | null;
                /** The roles the key holds, by name (422 `role_unknown` at the name the project has none of); `null` for none. The key may do what its own permissions and its roles' allow. */
                readonly roles?: readonly string[] | null;
            }[];
            /** Pass it as `?cursor=` for the next page; `null` on the last page. Opaque: send it back as it is. */
            readonly next_cursor: string | null;
        };
        readonly Identity: {
            /** The identity's id: what its operations and a key's `identity_id` take. */
            readonly id: string;
            readonly project_id: string;
            /** The host's own id for its customer. */
            readonly external_id: string;
            /** A JSON object of at most 4096 bytes handed to the server with the key; `null` for none. */
            readonly metadata: {
                readonly [key: string]: unknown;
            } | null;
            readonly ratelimits: readonly {
                /** Distinct among the limits of a key (or identity), what a route names to give it a cost. */
                readonly name: string;
                /** How many requests (or how much cost) each window allows. */
                readonly limit: number;
                /** The window, in milliseconds of whole seconds: from 1000 (1 s) to 86400000 (1 day). */
                readonly duration: number;
            }[];
            /** The credits left in the pool; `null` for no pool. */
            readonly remaining: number | null;
            /** How the credits come back; `null` for never. */
            readonly refill: {
                /** The balance a refill brings the key up to. */
                readonly amount: number;
                readonly interval: "daily" | "monthly";
                /** Monthly only: the day of the month (default 1); past the month's end, its last day. */
                readonly day?: number;
            } | null;
            /** When the credits are low: `credits.low` is sent once per refill period when a lease leaves the balance at or below it. Needs `remaining`; `percent` needs `refill`. `null` for none. */
            readonly credits_low_at?: {
                /** Low at or below this many credits, 0 to 1000000000000. */
                readonly remaining: number;
            } | {
                /** Low at or below this share of the refill rule's amount, 1 to 99. */
                readonly percent: number;
            } | null;
            /** The roles the identity holds, by name (422 `role_unknown` at the name the project has none of); `null` for none. Every key of the identity may do what they allow, besides its own permissions and roles. */
            readonly roles: readonly string[] | null;
            /**
             * Format: date-time
             * When the identity was created.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * When it last changed.
             */
            readonly updated_at: string;
        };
        readonly IdentityList: {
            readonly identities: readonly {
                /** The identity's id: what its operations and a key's `identity_id` take. */
                readonly id: string;
                readonly project_id: string;
                /** The host's own id for its customer. */
                readonly external_id: string;
                /** A JSON object of at most 4096 bytes handed to the server with the key; `null` for none. */
                readonly metadata: {
                    readonly [key: string]: unknown;
                } | null;
                readonly ratelimits: readonly {
                    /** Distinct among the limits of a key (or identity), what a route names to give it a cost. */
                    readonly name: string;
                    /** How many requests (or how much cost) each window allows. */
                    readonly limit: number;
                    /** The window, in milliseconds of whole seconds: from 1000 (1 s) to 86400000 (1 day). */
                    readonly duration: number;
                }[];
                /** The credits left in the pool; `null` for no pool. */
                readonly remaining: number | null;
                /** How the credits come back; `null` for never. */
                readonly refill: {
                    /** The balance a refill brings the key up to. */
                    readonly amount: number;
                    readonly interval: "daily" | "monthly";
                    /** Monthly only: the day of the month (default 1); past the month's end, its last day. */
                    readonly day?: number;
                } | null;
                /** When the credits are low: `credits.low` is sent once per refill period when a lease leaves the balance at or below it. Needs `remaining`; `percent` needs `refill`. `null` for none. */
                readonly credits_low_at?: {
                    /** Low at or below this many credits, 0 to 1000000000000. */
                    readonly remaining: number;
                } | {
                    /** Low at or below this share of the refill rule's amount, 1 to 99. */
                    readonly percent: number;
                } | null;
                /** The roles the identity holds, by name (422 `role_unknown` at the name the project has none of); `null` for none. Every key of the identity may do what they allow, besides its own permissions and roles. */
                readonly roles: readonly string[] | null;
                /**
                 * Format: date-time
                 * When the identity was created.
                 */
                readonly created_at: string;
                /**
                 * Format: date-time
                 * When it last changed.
                 */
                readonly updated_at: string;
            }[];
            /** Pass it as `?cursor=` for the next page; `null` on the last page. Opaque: send it back as it is. */
            readonly next_cursor: string | null;
        };
        readonly DeletedIdentity: {
            readonly id: string;
            readonly deleted: true;
            /** The ids of the keys the deletion revoked (with `revoke_keys=true`); empty otherwise. */
            readonly revoked_keys: readonly string[];
        };
        readonly Project: {
            readonly id: string;
            readonly name: string;
            readonly developer_id: string;
            /**
             * Format: date-time
             * When the project was created.
             */
            readonly created_at: string;
        };
        readonly ProjectList: {
            readonly projects: readonly {
                readonly id: string;
                readonly name: string;
                readonly developer_id: string;
                /**
                 * Format: date-time
                 * When the project was created.
                 */
                readonly created_at: string;
            }[];
            /** Pass it as `?cursor=` for the next page; `null` on the last page. Opaque: send it back as it is. */
            readonly next_cursor: string | null;
        };
        readonly CreatedProject: {
            readonly project: {
                readonly id: string;
                readonly name: string;
                readonly developer_id: string;
                /**
                 * Format: date-time
                 * When the project was created.
                 */
                readonly created_at: string;
            };
            readonly api_key: {
                /** The key record's id: what deactivation, roll and activation take. */
                readonly id: string;
                /** The full key, shown this once and never again. */
                readonly key: string;
                /** The first 8 characters of the key: for display, not unique. */
                readonly key_prefix: string;
                /** `key_prefix` followed by `...`. */
                readonly display: string;
                readonly name: string | null;
                readonly project_id: string;
                /** Only active keys authenticate. */
                readonly active: boolean;
                /**
                 * Format: date-time
                 * When the key was issued.
                 */
                readonly created_at: string;
                readonly expires_at?: string | null;
                readonly last_used_at?: string | null;
                /** Older than the rotation period. */
                readonly rotation_due?: boolean;
                /** Why the key no longer works or is on its way out: `leaked` (deactivated by a secret-scanning report), `revoked` (any other deactivation), `rolled` (replaced by a roll; it works until `expires_at`), `null` for an active key. */
                readonly revoked_reason?: "leaked" | "revoked" | "rolled" | null;
                /** The addresses and CIDR ranges the key may be used from, at most 100; `null` for anywhere. IPv4 clients seen as IPv4-mapped IPv6 (`::ffff:203.0.113.7`) match IPv4 entries. */
                readonly ip_allowlist?: readonly string[] | null;
                /** The key's own permissions, among those the server declares, or wildcards; `null` for all of them (unless it holds roles: then none but its roles'). */
                readonly permissions?: readonly string[] | null;
                /** A JSON object of at most 4096 bytes handed to the server with the key; `null` for none. */
                readonly metadata?: {
                    readonly [key: string]: unknown;
                } | null;
                /** The key's own named rate limits; `[]` for none. */
                readonly ratelimits?: readonly {
                    /** Distinct among the limits of a key (or identity), what a route names to give it a cost. */
                    readonly name: string;
                    /** How many requests (or how much cost) each window allows. */
                    readonly limit: number;
                    /** The window, in milliseconds of whole seconds: from 1000 (1 s) to 86400000 (1 day). */
                    readonly duration: number;
                }[];
                /** The credits the key has left, `null` for unlimited. Each request costs its route's cost (default 1); credits that servers leased in blocks are spent already from the key's viewpoint. */
                readonly remaining?: number | null;
                /** How the credits come back; `null` for never. */
                readonly refill?: {
                    /** The balance a refill brings the key up to. */
                    readonly amount: number;
                    readonly interval: "daily" | "monthly";
                    /** Monthly only: the day of the month (default 1); past the month's end, its last day. */
                    readonly day?: number;
                } | null;
                /** When the credits are low: `credits.low` is sent once per refill period when a lease leaves the balance at or below it. Needs `remaining`; `percent` needs `refill`. `null` for none. */
                readonly credits_low_at?: {
                    /** Low at or below this many credits, 0 to 1000000000000. */
                    readonly remaining: number;
                } | {
                    /** Low at or below this share of the refill rule's amount, 1 to 99. */
                    readonly percent: number;
                } | null;
                /** The identity the key belongs to (its id); `null` for none. */
                readonly identity_id?: string | null;
                /** The roles the key holds, by name (422 `role_unknown` at the name the project has none of); `null` for none. The key may do what its own permissions and its roles' allow. */
                readonly roles?: readonly string[] | null;
            };
        };
        readonly Deleted: {
            readonly id: string;
            readonly deleted: true;
        };
        readonly AuditEntry: {
            /** The row's place in the log: 1, 2, 3, ... with no gap. */
            readonly seq: number;
            /**
             * Format: date-time
             * When the change was made.
             */
            readonly at: string;
            /** What happened, e.g. `key.revoked`, `project.created`, `console.signed_in`. */
            readonly action: string;
            /** A developer (by their key), the CLI operator, the secret-scanning endpoint, or the system. */
            readonly actor: {
                readonly type: "developer" | "operator" | "secret_scanning" | "system";
                /** The developer (type `developer`). */
                readonly developer_id?: string;
                /** The first 8 characters of the key they used (type `developer`). */
                readonly key_prefix?: string;
                /** The operator's name, when the CLI was given one. */
                readonly name?: string;
            };
            readonly client_address: string | null;
            readonly request_id: string | null;
            readonly developer_id: string | null;
            readonly project_id: string | null;
            readonly target: {
                readonly type: "key" | "project" | "developer" | "identity" | "role" | "webhook_endpoint";
                readonly id: string;
            };
            /** The changed fields before the change (a key by its 8-character prefix, never the key). */
            readonly before: {
                readonly [key: string]: unknown;
            } | null;
            /** The changed fields after the change. */
            readonly after: {
                readonly [key: string]: unknown;
            } | null;
            /** The hash of the row before: the chain. */
            readonly previous_hash: string;
            /** SHA-256 (hex) of the canonical JSON of this row without `hash`: what `keyward audit verify` checks. */
            readonly hash: string;
        };
        readonly AuditLog: {
            readonly entries: readonly {
                /** The row's place in the log: 1, 2, 3, ... with no gap. */
                readonly seq: number;
                /**
                 * Format: date-time
                 * When the change was made.
                 */
                readonly at: string;
                /** What happened, e.g. `key.revoked`, `project.created`, `console.signed_in`. */
                readonly action: string;
                /** A developer (by their key), the CLI operator, the secret-scanning endpoint, or the system. */
                readonly actor: {
                    readonly type: "developer" | "operator" | "secret_scanning" | "system";
                    /** The developer (type `developer`). */
                    readonly developer_id?: string;
                    /** The first 8 characters of the key they used (type `developer`). */
                    readonly key_prefix?: string;
                    /** The operator's name, when the CLI was given one. */
                    readonly name?: string;
                };
                readonly client_address: string | null;
                readonly request_id: string | null;
                readonly developer_id: string | null;
                readonly project_id: string | null;
                readonly target: {
                    readonly type: "key" | "project" | "developer" | "identity" | "role" | "webhook_endpoint";
                    readonly id: string;
                };
                /** The changed fields before the change (a key by its 8-character prefix, never the key). */
                readonly before: {
                    readonly [key: string]: unknown;
                } | null;
                /** The changed fields after the change. */
                readonly after: {
                    readonly [key: string]: unknown;
                } | null;
                /** The hash of the row before: the chain. */
                readonly previous_hash: string;
                /** SHA-256 (hex) of the canonical JSON of this row without `hash`: what `keyward audit verify` checks. */
                readonly hash: string;
            }[];
            /** Pass it as `?cursor=` for the next page; `null` on the last page. Opaque: send it back as it is. */
            readonly next_cursor: string | null;
        };
        readonly AccessToken: {
            /** Send it as `Authorization: Bearer <access_token>`. */
            readonly access_token: string;
            readonly token_type: "bearer";
            /** Lifetime in seconds. */
            readonly expires_in: number;
        };
        readonly GenerationBody: {
            readonly [key: string]: unknown;
        };
        readonly Generation: {
            /** Format: uuid */
            readonly id: string;
            readonly project_id: string;
            /**
             * Format: date-time
             * When the generation was created.
             */
            readonly created_at: string;
        };
        readonly Health: {
            readonly status: "ok";
            /**
             * Present while the throttle's shared counters do not answer: keys are still checked, failed verifications are not counted.
             */
            readonly throttle?: "degraded";
        };
        readonly SecretScanningAlert: {
            /** The string that matched the key format. */
            readonly token: string;
            /** The token type the sender matched. */
            readonly type: string;
            /** Where the match was found. */
            readonly url: string;
            /** What kind of place that is (content, commit, npm, ...). */
            readonly source: string;
        };
        readonly SecretScanningFeedback: {
            /** SHA-256 of the token, hex. */
            readonly token_hash?: string;
            readonly token_raw?: string;
            readonly token_type: string;
            readonly label: "true_positive" | "false_positive";
        };
        /** Unknown fields are refused (`extra_forbidden`). */
        readonly VerifyKeyBody: {
            /** The API key to verify, as the client presented it. */
            readonly key: string;
            /** The key must be one of this project's (`project_mismatch` otherwise). Default: any. */
            readonly project_id?: string;
            /** What the key must carry (`permission_denied` otherwise), among the permissions the server declares: a list (every one), or a permission query as a guard takes it. */
            readonly permissions?: readonly string[] | (string | {
                /** Queries, every one of which the key must satisfy. */
                readonly and: readonly unknown[];
            } | {
                /** Queries, at least one of which the key must satisfy. */
                readonly or: readonly unknown[];
            });
            /** Credits this request spends of a key that has credits, as a route's `cost` does: 0 to 1000, default 1. A key without enough is refused (`usage_exceeded`); a key without credits spends nothing. */
            readonly cost?: number;
            /** The address of the client that presented the key, checked against the key's IP allowlist and used for nothing else. Without it, a key with an allowlist is refused (`ip_not_allowed`). Failed verifications count against the caller (its own address and its credential), never against `ip`. */
            readonly ip?: string;
        };
        readonly VerifyKeyResult: {
            /** Whether the key passed every check. */
            readonly valid: boolean;
            /** Why the key was refused: the error type the guard of an API key answers, e.g. `key_invalid`; `null` when valid. */
            readonly code: ("key_missing" | "key_malformed" | "key_legacy_prefix" | "key_invalid" | "key_wrong_type" | "project_mismatch" | "ip_not_allowed" | "permission_denied" | "rate_limited" | "usage_exceeded") | null;
            /** The key record's id; `null` when refused. */
            readonly key_id: string | null;
            /** Whose key it is; `null` when refused. */
            readonly owner: {
                readonly type: "project";
                /** The project id. */
                readonly id: string;
            } | null;
            /** The key's own permissions, among those the server declares, or wildcards; `null` for all of them (unless it holds roles: then none but its roles'). */
            readonly permissions: readonly string[] | null;
            /** A JSON object of at most 4096 bytes handed to the server with the key; `null` for none. */
            readonly metadata: {
                readonly [key: string]: unknown;
            } | null;
            /** The identity the key belongs to; `null` for none, or when refused. */
            readonly identity: {
                /** The identity's id. */
                readonly id: string;
                /** The host's own id for its customer. */
                readonly external_id: string;
                /** A JSON object of at most 4096 bytes handed to the server with the key; `null` for none. */
                readonly metadata: {
                    readonly [key: string]: unknown;
                } | null;
            } | null;
            /** The key's credits left after this request (what this process holds of them, as `X-Credits-Remaining` tells; for a key that spends from its identity's pool too, the lower of the two); `null` for a key without credits or pool, or a cost of 0. */
            readonly remaining: number | null;
            /** When the key stops working; `null` for never, or when refused. */
            readonly expires_at: string | null;
            /** The key's own rate limit after this request took from it; `null` for a key without one. */
            readonly ratelimit: {
                /** Requests per window. */
                readonly limit: number;
                readonly window_seconds: number;
                /** Requests left in this window. */
                readonly remaining: number;
                /** Seconds until the window ends. */
                readonly reset_seconds: number;
            } | null;
        };
        readonly Usage: {
            readonly granularity: "minute" | "hour" | "day";
            /**
             * Format: date-time
             * The start of the range, as asked (its bucket is the first).
             */
            readonly from: string;
            /**
             * Format: date-time
             * The end of the range, exclusive.
             */
            readonly to: string;
            /** Oldest first; buckets, keys and outcomes without counts are left out. */
            readonly usage: readonly {
                /**
                 * Format: date-time
                 * The start of the bucket, in UTC.
                 */
                readonly start: string;
                readonly key_id: string;
                /** `accepted`, or the refusal of the key: `inactive`, `expired`, `wrong_type`, `wrong_project`, `not_project_owner`, `project_not_found`, `ip_not_allowed`, `permission_denied`, `rate_limited`, `usage_exceeded`. */
                readonly outcome: "accepted" | "inactive" | "expired" | "wrong_type" | "wrong_project" | "not_project_owner" | "project_not_found" | "ip_not_allowed" | "permission_denied" | "rate_limited" | "usage_exceeded" | "unknown" | "malformed";
                readonly count: number;
            }[];
        };
        readonly ErrorBody: {
            readonly detail: readonly {
                /** Where the faulty input is, e.g. `["header", "x-api-key"]`. */
                readonly loc: readonly string[];
                /** For humans; never more of a key than its first 8 characters. */
                readonly msg: string;
                /** @enum {string} */
                readonly type: "key_missing" | "key_malformed" | "key_legacy_prefix" | "key_invalid" | "key_wrong_type" | "token_missing" | "token_invalid" | "signature_missing" | "signature_invalid" | "project_mismatch" | "not_project_owner" | "ip_not_allowed" | "permission_denied" | "not_found" | "method_not_allowed" | "limit_exceeded" | "key_rolled" | "key_expired" | "key_inactive" | "identity_exists" | "identity_has_keys" | "role_exists" | "role_in_use" | "payload_too_large" | "alert_invalid" | "unsupported_media_type" | "rate_limited" | "usage_exceeded" | "json_invalid" | "dict_type" | "missing" | "string_type" | "string_too_short" | "string_too_long" | "string_pattern_mismatch" | "uuid_parsing" | "int_type" | "greater_than_equal" | "less_than_equal" | "datetime_parsing" | "datetime_future" | "value_error" | "extra_forbidden" | "key_shaped_value" | "request_invalid" | "request_timeout" | "expectation_failed" | "headers_too_large" | "list_type" | "too_long" | "ip_invalid" | "permission_unknown" | "role_unknown" | "lifetime_exceeded" | "store_unavailable" | "revocation_unconfirmed" | "signing_keys_unavailable" | "internal_error";
            }[];
        };
        /** A permission the server declares, or a wildcard: `reports:*` (every declared permission that starts with `reports:`, including those declared later) or `*` (all of them). Wildcards are granted, never required. */
        readonly GrantedPermission: string;
        /** The roles the key holds, by name (422 `role_unknown` at the name the project has none of); `null` for none. The key may do what its own permissions and its roles' allow. */
        readonly KeyRoles: readonly string[] | null;
        /** The roles the identity holds, by name (422 `role_unknown` at the name the project has none of); `null` for none. Every key of the identity may do what they allow, besides its own permissions and roles. */
        readonly IdentityRoles: readonly string[] | null;
        /** Unknown fields are refused (`extra_forbidden`). A permission must be declared by the server. */
        readonly CreateRoleBody: {
            /** 1 to 100 characters, unique within the project (409 `role_exists`). */
            readonly name: string;
            /** The permissions the role gives every key that holds it; may be empty. */
            readonly permissions: readonly string[];
        };
        /** Any of `name` and `permissions`; fields left out stay as they are. Every key that holds the role has the new permissions within the revocation bound (before the call returns under strict revocation). Unknown fields are refused (`extra_forbidden`). */
        readonly UpdateRoleBody: {
            /** A new name, unique within the project (409 `role_exists`). */
            readonly name?: string;
            /** The permissions the role gives every key that holds it; may be empty. */
            readonly permissions?: readonly string[];
        };
        readonly Role: {
            /** The role's id: what its operations take. */
            readonly id: string;
            readonly project_id: string;
            /** What keys name it by, in their `roles`. */
            readonly name: string;
            readonly permissions: readonly string[];
            /**
             * Format: date-time
             * When the role was created.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * When it last changed.
             */
            readonly updated_at: string;
        };
        readonly RoleList: {
            readonly roles: readonly {
                /** The role's id: what its operations take. */
                readonly id: string;
                readonly project_id: string;
                /** What keys name it by, in their `roles`. */
                readonly name: string;
                readonly permissions: readonly string[];
                /**
                 * Format: date-time
                 * When the role was created.
                 */
                readonly created_at: string;
                /**
                 * Format: date-time
                 * When it last changed.
                 */
                readonly updated_at: string;
            }[];
            /** Pass it as `?cursor=` for the next page; `null` on the last page. Opaque: send it back as it is. */
            readonly next_cursor: string | null;
        };
        readonly DeletedRole: {
            readonly id: string;
            readonly deleted: true;
            /** The ids of the keys the role was taken from (with `detach=true`); empty otherwise. */
            readonly detached_keys: readonly string[];
            /** The ids of the identities the role was taken from (with `detach=true`); empty otherwise. */
            readonly detached_identities: readonly string[];
        };
        /** A new endpoint: at most 10 per developer. */
        readonly CreateWebhookEndpointBody: {
            /** Where deliveries are POSTed: `https://` (the operator may allow `http://` for development); a host that resolves to a loopback, private, link-local or metadata address is refused (422), here and at each delivery. */
            readonly url: string;
            readonly description?: string | null;
            /** Only the events of these projects; `null` (default): every project's, and the developer's own keys'. */
            readonly project_ids?: readonly string[] | null;
            /** Only events of these types; `null` (default): every type. */
            readonly event_types?: readonly ("key.created" | "key.revoked" | "key.leaked" | "key.rolled" | "key.expiring" | "key.expired" | "ratelimit.exceeded" | "credits.low" | "credits.exhausted" | "credits.refilled" | "endpoint.disabled" | "webhook.test")[] | null;
        };
        /** Fields left out stay as they are. */
        readonly UpdateWebhookEndpointBody: {
            /** Where deliveries are POSTed: `https://` (the operator may allow `http://` for development); a host that resolves to a loopback, private, link-local or metadata address is refused (422), here and at each delivery. */
            readonly url?: string;
            readonly description?: string | null;
            /** Only the events of these projects; `null` (default): every project's, and the developer's own keys'. */
            readonly project_ids?: readonly string[] | null;
            /** Only events of these types; `null` (default): every type. */
            readonly event_types?: readonly ("key.created" | "key.revoked" | "key.leaked" | "key.rolled" | "key.expiring" | "key.expired" | "ratelimit.exceeded" | "credits.low" | "credits.exhausted" | "credits.refilled" | "endpoint.disabled" | "webhook.test")[] | null;
            /**
             * `false` enables an endpoint disabled after failing, and forgets its failures.
             */
            readonly disabled?: false;
        };
        readonly RollWebhookSecretBody: {
            /** How long the previous secret signs too, beside the new one (default 86400: one day). */
            readonly grace_seconds?: number;
        };
        readonly WebhookEndpoint: {
            /** Format: uuid */
            readonly id: string;
            readonly url: string;
            readonly description: string | null;
            /** Only the events of these projects; `null` (default): every project's, and the developer's own keys'. */
            readonly project_ids: readonly string[] | null;
            /** Only events of these types; `null` (default): every type. */
            readonly event_types: readonly ("key.created" | "key.revoked" | "key.leaked" | "key.rolled" | "key.expiring" | "key.expired" | "ratelimit.exceeded" | "credits.low" | "credits.exhausted" | "credits.refilled" | "endpoint.disabled" | "webhook.test")[] | null;
            readonly previous_secret_expires_at: string | null;
            readonly failing_since: string | null;
            readonly disabled_at: string | null;
            /**
             * Format: date-time
             * When it was registered.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * When it last changed.
             */
            readonly updated_at: string;
        };
        readonly WebhookEndpointWithSecret: {
            /** Format: uuid */
            readonly id: string;
            readonly url: string;
            readonly description: string | null;
            /** Only the events of these projects; `null` (default): every project's, and the developer's own keys'. */
            readonly project_ids: readonly string[] | null;
            /** Only events of these types; `null` (default): every type. */
            readonly event_types: readonly ("key.created" | "key.revoked" | "key.leaked" | "key.rolled" | "key.expiring" | "key.expired" | "ratelimit.exceeded" | "credits.low" | "credits.exhausted" | "credits.refilled" | "endpoint.disabled" | "webhook.test")[] | null;
            readonly previous_secret_expires_at: string | null;
            readonly failing_since: string | null;
            readonly disabled_at: string | null;
            /**
             * Format: date-time
             * When it was registered.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * When it last changed.
             */
            readonly updated_at: string;
            /** The signing secret (`whsec_` and base64), shown this once: keep it to verify deliveries. */
            readonly secret: string;
        };
        readonly WebhookEndpointList: {
            readonly endpoints: readonly {
                /** Format: uuid */
                readonly id: string;
                readonly url: string;
                readonly description: string | null;
                /** Only the events of these projects; `null` (default): every project's, and the developer's own keys'. */
                readonly project_ids: readonly string[] | null;
                /** Only events of these types; `null` (default): every type. */
                readonly event_types: readonly ("key.created" | "key.revoked" | "key.leaked" | "key.rolled" | "key.expiring" | "key.expired" | "ratelimit.exceeded" | "credits.low" | "credits.exhausted" | "credits.refilled" | "endpoint.disabled" | "webhook.test")[] | null;
                readonly previous_secret_expires_at: string | null;
                readonly failing_since: string | null;
                readonly disabled_at: string | null;
                /**
                 * Format: date-time
                 * When it was registered.
                 */
                readonly created_at: string;
                /**
                 * Format: date-time
                 * When it last changed.
                 */
                readonly updated_at: string;
            }[];
        };
        readonly WebhookAttemptList: {
            readonly attempts: readonly {
                readonly delivery_id: string;
                /** The `webhook-id` of the delivery. */
                readonly event_id: string;
                /** A webhook event type. */
                readonly event_type: "key.created" | "key.revoked" | "key.leaked" | "key.rolled" | "key.expiring" | "key.expired" | "ratelimit.exceeded" | "credits.low" | "credits.exhausted" | "credits.refilled" | "endpoint.disabled" | "webhook.test";
                /**
                 * Format: date-time
                 * When the attempt started.
                 */
                readonly at: string;
                /** The HTTP status answered; `null` when none was (refused address, timeout, connection error). */
                readonly status: number | null;
                readonly duration_ms: number;
                /** The first 1 KB of the answer, or why there was none. */
                readonly response: string;
            }[];
        };
        /** Either `event_id`, or `from` and `to`: the events the endpoint takes made in that range (a test event only to the endpoint it was sent to). */
        readonly RedeliverWebhookBody: {
            /** The event to send again (its `webhook-id`). */
            readonly event_id?: string;
            /**
             * Format: date-time
             * The events made from this time (inclusive).
             */
            readonly from?: string;
            /**
             * Format: date-time
             * ... to this time (exclusive): at most 30 days after `from`.
             */
            readonly to?: string;
        };
        readonly WebhookRedeliveryResult: {
            /** How many events are due to the endpoint again, sent through the outbox as any delivery. */
            readonly redelivered: number;
        };
        readonly WebhookTestResult: {
            /** The `webhook-id` of the test delivery. */
            readonly event_id: string;
            readonly type: "webhook.test";
        };
        readonly WebhookPayload: {
            /** A webhook event type. */
            readonly type: "key.created" | "key.revoked" | "key.leaked" | "key.rolled" | "key.expiring" | "key.expired" | "ratelimit.exceeded" | "credits.low" | "credits.exhausted" | "credits.refilled" | "endpoint.disabled" | "webhook.test";
            /**
             * Format: date-time
             * When the change that made the event was made.
             */
            readonly timestamp: string;
            readonly data: {
                readonly key_id?: string;
                /** The key's first 8 characters: never the key or its hash. */
                readonly key_prefix?: string;
                readonly name?: string | null;
                readonly developer_id: string;
                readonly project_id?: string | null;
                /** The key's expiry (`key.expiring`, `key.expired`: when it expires or expired). */
                readonly expires_at?: string | null;
                /** `key.expiring`: the threshold reached, in days before the expiry (by default 7 or 1). */
                readonly days_before?: number;
                readonly replaced_by?: string | null;
                readonly revoked_reason?: string | null;
                readonly rolled_from?: string;
                /** `key.leaked`: where the secret-scanning alert found it. */
                readonly leak_url?: string;
                readonly leak_source?: string;
                /** `ratelimit.exceeded`: the identity whose shared limit refused the key's requests; `credits.*`: the identity whose pool it is (or the key's identity). */
                readonly identity_id?: string | null;
                /** `credits.*`: whose credits: a key's own, or an identity's pool. */
                readonly holder?: "key" | "identity";
                /** `credits.refilled` of a pool: the identity's external id. */
                readonly external_id?: string;
                /** `credits.*`: the stored balance the lease or the refill left (credits leased to processes are spent). */
                readonly remaining?: number;
                /** `credits.low`: the threshold as set. */
                readonly credits_low_at?: {
                    readonly remaining: number;
                } | {
                    readonly percent: number;
                };
                /** `credits.low`: the threshold in credits (a percent of the refill amount, rounded down). */
                readonly threshold?: number;
                /** `credits.*`: the refill rule's amount, `null` without a rule. */
                readonly refill_amount?: number | null;
                /** `credits.*`: the refill period the event belongs to (without a refill rule, the UTC day): at most one event of a kind each. */
                readonly period_start?: string;
                /** `ratelimit.exceeded`: the rate limit spent. */
                readonly limit_name?: string;
                /** `ratelimit.exceeded`: its requests per window. */
                readonly limit?: number;
                /** `ratelimit.exceeded`: its window's length. */
                readonly duration_ms?: number;
                /** `ratelimit.exceeded`: the requests it refused in the minute. */
                readonly count?: number;
                /** `ratelimit.exceeded`: the minute counted, at most one event each. */
                readonly window_start?: string;
                /** `endpoint.disabled`: the endpoint disabled. */
                readonly endpoint_id?: string;
                readonly url?: string;
                readonly failing_since?: string | null;
                /** Who made the change: `developer`, `operator`, `secret_scanning` or `system`. */
                readonly actor: string;
            } & {
                readonly [key: string]: unknown;
            };
        };
    };
    responses: {
        /** The request body is not in the expected format (a secret-scanning alert that is not an array of alerts), or the request breaks HTTP/1.1 (answered by the server before any route). Types: `alert_invalid`, `request_invalid`. */
        readonly Error400: {
            headers: {
                /** `no-store`. */
                readonly "Cache-Control"?: string;
                readonly [name: string]: unknown;
            };
            content: {
                readonly "application/json": {
                    readonly detail: readonly {
                        /** Where the faulty input is, e.g. `["header", "x-api-key"]`. */
                        readonly loc: readonly string[];
                        /** For humans; never more of a key than its first 8 characters. */
                        readonly msg: string;
                        /** @enum {string} */
                        readonly type: "alert_invalid" | "request_invalid";
                    }[];
                };
            };
        };
        /** No valid credential. `WWW-Authenticate: Bearer` for bearer tokens. Types: `key_missing`, `key_malformed`, `key_legacy_prefix`, `key_invalid`, `key_wrong_type`, `token_missing`, `token_invalid`, `signature_missing`, `signature_invalid`. */
        readonly Error401: {
            headers: {
                /** `no-store`. */
                readonly "Cache-Control"?: string;
                /** `Bearer` challenge, for bearer tokens (RFC 6750). */
                readonly "WWW-Authenticate"?: string;
                readonly [name: string]: unknown;
            };
            content: {
                readonly "application/json": {
                    readonly detail: readonly {
                        /** Where the faulty input is, e.g. `["header", "x-api-key"]`. */
                        readonly loc: readonly string[];
                        /** For humans; never more of a key than its first 8 characters. */
                        readonly msg: string;
                        /** @enum {string} */
                        readonly type: "key_missing" | "key_malformed" | "key_legacy_prefix" | "key_invalid" | "key_wrong_type" | "token_missing" | "token_invalid" | "signature_missing" | "signature_invalid";
                    }[];
                };
            };
        };
        /** A valid credential without access to this project, used from an address outside the API key's IP allowlist, or without a permission the route requires. Types: `project_mismatch`, `not_project_owner`, `ip_not_allowed`, `permission_denied`. */
        readonly Error403: {
            headers: {
                /** `no-store`. */
                readonly "Cache-Control"?: string;
                readonly [name: string]: unknown;
            };
            content: {
                readonly "application/json": {
                    readonly detail: readonly {
                        /** Where the faulty input is, e.g. `["header", "x-api-key"]`. */
                        readonly loc: readonly string[];
                        /** For humans; never more of a key than its first 8 characters. */
                        readonly msg: string;
                        /** @enum {string} */
                        readonly type: "project_mismatch" | "not_project_owner" | "ip_not_allowed" | "permission_denied";
                    }[];
                };
            };
        };
        /** The project or resource does not exist, or is not visible to the caller. Types: `not_found`. */
        readonly Error404: {
            headers: {
                /** `no-store`. */
                readonly "Cache-Control"?: string;
                readonly [name: string]: unknown;
            };
            content: {
                readonly "application/json": {
                    readonly detail: readonly {
                        /** Where the faulty input is, e.g. `["header", "x-api-key"]`. */
                        readonly loc: readonly string[];
                        /** For humans; never more of a key than its first 8 characters. */
                        readonly msg: string;
                        /** @enum {string} */
                        readonly type: "not_found";
                    }[];
                };
            };
        };
        /** undefined Types: `method_not_allowed`. */
        readonly Error405: {
            headers: {
                /** `no-store`. */
                readonly "Cache-Control"?: string;
                readonly [name: string]: unknown;
            };
            content: {
                readonly "application/json": {
                    readonly detail: readonly {
                        /** Where the faulty input is, e.g. `["header", "x-api-key"]`. */
                        readonly loc: readonly string[];
                        /** For humans; never more of a key than its first 8 characters. */
                        readonly msg: string;
                        /** @enum {string} */
                        readonly type: "method_not_allowed";
                    }[];
                };
            };
        };
        /** The client took longer than the server allows to send the request; the connection closes. Types: `request_timeout`. */
        readonly Error408: {
            headers: {
                /** `no-store`. */
                readonly "Cache-Control"?: string;
                readonly [name: string]: unknown;
            };
            content: {
                readonly "application/json": {
                    readonly detail: readonly {
                        /** Where the faulty input is, e.g. `["header", "x-api-key"]`. */
                        readonly loc: readonly string[];
                        /** For humans; never more of a key than its first 8 characters. */
                        readonly msg: string;
                        /** @enum {string} */
                        readonly type: "request_timeout";
                    }[];
                };
            };
        };
        /** The owner already has its limit of active keys, the key cannot be rolled, re-activated or given a new expiry (rolled, expired, inactive), the project has an identity with this `external_id` already, or the identity still has keys. Types: `limit_exceeded`, `key_rolled`, `key_expired`, `key_inactive`, `identity_exists`, `identity_has_keys`, `role_exists`, `role_in_use`. */
        readonly Error409: {
            headers: {
                /** `no-store`. */
                readonly "Cache-Control"?: string;
                readonly [name: string]: unknown;
            };
            content: {
                readonly "application/json": {
                    readonly detail: readonly {
                        /** Where the faulty input is, e.g. `["header", "x-api-key"]`. */
                        readonly loc: readonly string[];
                        /** For humans; never more of a key than its first 8 characters. */
                        readonly msg: string;
                        /** @enum {string} */
                        readonly type: "limit_exceeded" | "key_rolled" | "key_expired" | "key_inactive" | "identity_exists" | "identity_has_keys" | "role_exists" | "role_in_use";
                    }[];
                };
            };
        };
        /** The request body is larger than the server accepts. Types: `payload_too_large`. */
        readonly Error413: {
            headers: {
                /** `no-store`. */
                readonly "Cache-Control"?: string;
                readonly [name: string]: unknown;
            };
            content: {
                readonly "application/json": {
                    readonly detail: readonly {
                        /** Where the faulty input is, e.g. `["header", "x-api-key"]`. */
                        readonly loc: readonly string[];
                        /** For humans; never more of a key than its first 8 characters. */
                        readonly msg: string;
                        /** @enum {string} */
                        readonly type: "payload_too_large";
                    }[];
                };
            };
        };
        /** The request body is not `application/json`. Types: `unsupported_media_type`. */
        readonly Error415: {
            headers: {
                /** `no-store`. */
                readonly "Cache-Control"?: string;
                readonly [name: string]: unknown;
            };
            content: {
                readonly "application/json": {
                    readonly detail: readonly {
                        /** Where the faulty input is, e.g. `["header", "x-api-key"]`. */
                        readonly loc: readonly string[];
                        /** For humans; never more of a key than its first 8 characters. */
                        readonly msg: string;
                        /** @enum {string} */
                        readonly type: "unsupported_media_type";
                    }[];
                };
            };
        };
        /** The request has an `Expect` header other than `100-continue`. Types: `expectation_failed`. */
        readonly Error417: {
            headers: {
                /** `no-store`. */
                readonly "Cache-Control"?: string;
                readonly [name: string]: unknown;
            };
            content: {
                readonly "application/json": {
                    readonly detail: readonly {
                        /** Where the faulty input is, e.g. `["header", "x-api-key"]`. */
                        readonly loc: readonly string[];
                        /** For humans; never more of a key than its first 8 characters. */
                        readonly msg: string;
                        /** @enum {string} */
                        readonly type: "expectation_failed";
                    }[];
                };
            };
        };
        /** The request body, path or query is invalid, or the query names a parameter the operation does not declare (`extra_forbidden` at `["query", name]`). Types: `json_invalid`, `dict_type`, `missing`, `string_type`, `string_too_short`, `string_too_long`, `string_pattern_mismatch`, `uuid_parsing`, `int_type`, `greater_than_equal`, `less_than_equal`, `datetime_parsing`, `datetime_future`, `value_error`, `extra_forbidden`, `key_shaped_value`, `list_type`, `too_long`, `ip_invalid`, `permission_unknown`, `role_unknown`, `lifetime_exceeded`. */
        readonly Error422: {
            headers: {
                /** `no-store`. */
                readonly "Cache-Control"?: string;
                readonly [name: string]: unknown;
            };
            content: {
                readonly "application/json": {
                    readonly detail: readonly {
                        /** Where the faulty input is, e.g. `["header", "x-api-key"]`. */
                        readonly loc: readonly string[];
                        /** For humans; never more of a key than its first 8 characters. */
                        readonly msg: string;
                        /** @enum {string} */
                        readonly type: "json_invalid" | "dict_type" | "missing" | "string_type" | "string_too_short" | "string_too_long" | "string_pattern_mismatch" | "uuid_parsing" | "int_type" | "greater_than_equal" | "less_than_equal" | "datetime_parsing" | "datetime_future" | "value_error" | "extra_forbidden" | "key_shaped_value" | "list_type" | "too_long" | "ip_invalid" | "permission_unknown" | "role_unknown" | "lifetime_exceeded";
                    }[];
                };
            };
        };
        /** Too many requests (`Retry-After` says when to try again), or the API key's credits, or its identity's credit pool, cannot pay this request (`X-Credits-Remaining` says how many are left in the one that refused; `Retry-After` when it has a refill scheduled). Types: `rate_limited`, `usage_exceeded`. */
        readonly Error429: {
            headers: {
                /** `no-store`. */
                readonly "Cache-Control"?: string;
                /** Seconds to wait. */
                readonly "Retry-After"?: string;
                /** With `usage_exceeded`: the credits left (fewer than the request's cost) in what refused it: the API key's own, or its identity's pool. */
                readonly "X-Credits-Remaining"?: string;
                readonly [name: string]: unknown;
            };
            content: {
                readonly "application/json": {
                    readonly detail: readonly {
                        /** Where the faulty input is, e.g. `["header", "x-api-key"]`. */
                        readonly loc: readonly string[];
                        /** For humans; never more of a key than its first 8 characters. */
                        readonly msg: string;
                        /** @enum {string} */
                        readonly type: "rate_limited" | "usage_exceeded";
                    }[];
                };
            };
        };
        /** The request headers are larger than the server accepts; the connection closes. Types: `headers_too_large`. */
        readonly Error431: {
            headers: {
                /** `no-store`. */
                readonly "Cache-Control"?: string;
                readonly [name: string]: unknown;
            };
            content: {
                readonly "application/json": {
                    readonly detail: readonly {
                        /** Where the faulty input is, e.g. `["header", "x-api-key"]`. */
                        readonly loc: readonly string[];
                        /** For humans; never more of a key than its first 8 characters. */
                        readonly msg: string;
                        /** @enum {string} */
                        readonly type: "headers_too_large";
                    }[];
                };
            };
        };
        /** An unexpected failure; the body says nothing more. Types: `internal_error`. */
        readonly Error500: {
            headers: {
                /** `no-store`. */
                readonly "Cache-Control"?: string;
                readonly [name: string]: unknown;
            };
            content: {
                readonly "application/json": {
                    readonly detail: readonly {
                        /** Where the faulty input is, e.g. `["header", "x-api-key"]`. */
                        readonly loc: readonly string[];
                        /** For humans; never more of a key than its first 8 characters. */
                        readonly msg: string;
                        /** @enum {string} */
                        readonly type: "internal_error";
                    }[];
                };
            };
        };
        /** The key store cannot be reached; the request was refused (`store_unavailable`). Or a revocation was committed but not confirmed in time (`revocation_unconfirmed`): the key is revoked, and revoking it again is harmless. `Retry-After` may say when to try again. Types: `store_unavailable`, `revocation_unconfirmed`, `signing_keys_unavailable`. */
        readonly Error503: {
            headers: {
                /** `no-store`. */
                readonly "Cache-Control"?: string;
                /** Seconds to wait. */
                readonly "Retry-After"?: string;
                readonly [name: string]: unknown;
            };
            content: {
                readonly "application/json": {
                    readonly detail: readonly {
                        /** Where the faulty input is, e.g. `["header", "x-api-key"]`. */
                        readonly loc: readonly string[];
                        /** For humans; never more of a key than its first 8 characters. */
                        readonly msg: string;
                        /** @enum {string} */
                        readonly type: "store_unavailable" | "revocation_unconfirmed" | "signing_keys_unavailable";
                    }[];
                };
            };
        };
    };
    parameters: {
        readonly project_id: string;
        readonly key_id: string;
        readonly identity_id: string;
        readonly role_id: string;
        readonly endpoint_id: string;
        /** Only the identity with this `external_id` (1 to 255 characters, never shaped like a key): a page of it alone, or an empty page. */
        readonly identity_external_id: string;
        /** Only the identities whose `external_id` contains it, in any case (1 to 255 characters; never shaped like a key, 422 `key_shaped_value`). `external_id`, when given too, wins. */
        readonly identity_q: string;
        /** `true`: revoke the identity's keys and delete it, in one transaction. Default `false`: an identity with keys is kept (409). */
        readonly revoke_keys: "true" | "false";
        /** `true`: take the role from every key that holds it and delete it, in one transaction. Default `false`: a role that keys hold is kept (409 `role_in_use`). */
        readonly detach: "true" | "false";
        /** A UUID; anything else is answered 422 `uuid_parsing`. */
        readonly generation_id: string;
        /** How many items at most, 1 to 200. Default 100. */
        readonly limit: number;
        /** The `next_cursor` of the previous page, as it is; none (or empty) for the first page. A cursor no listing gave out is answered 422 at `["query", "cursor"]`. */
        readonly cursor: string;
        /** Only this project's rows: a project of the calling developer (404 for any other). */
        readonly audit_project_id: string;
        /** The start of the range, an RFC 3339 time with an offset. Default: 24 hours before `to`. Not older than the granularity is kept (minutes 7 days, hours 90, days 730 by default): 422 at `["query", "from"]`. */
        readonly from: string;
        /** The end of the range (exclusive), an RFC 3339 time with an offset. Default: now. At most 1440 buckets from `from`. */
        readonly to: string;
        /** The size of a bucket, in UTC. Default `hour`. */
        readonly granularity: "minute" | "hour" | "day";
        /** Only keys whose name contains it, in any case, or whose `key_prefix` starts with it (`ak_Ab3`, or the display form `ak_Ab3xY...`); 1 to 100 characters, an empty one is none. */
        readonly key_q: string;
        /** Only keys of this status now: `active` (active and not expired, a roll's old key in its grace window too), `expired` (active, past `expires_at`), `revoked` (deactivated, whatever the reason), `leaked` (deactivated by a leak report: some of the revoked keys). */
        readonly key_status: "active" | "expired" | "revoked" | "leaked";
        /** Only the rows about this key (a UUID): its creation, revocation, roll, expiry, policies, credits. */
        readonly audit_key_id: string;
        /** Only the rows about this identity (a UUID): its creation, changes, credits and deletion, and its keys' joining or leaving it. */
        readonly audit_identity_id: string;
        /** Only the rows of this action. */
        readonly audit_action: "key.issued" | "key.revoked" | "key.revoked_leaked" | "key.rolled" | "key.activated" | "key.expiry_set" | "key.policies_set" | "key.credits_changed" | "key.identity_set" | "identity.created" | "identity.updated" | "identity.deleted" | "identity.credits_changed" | "role.created" | "role.updated" | "role.deleted" | "project.created" | "project.deleted" | "developer.registered" | "console.signed_in" | "console.signed_out" | "webhook_endpoint.created" | "webhook_endpoint.updated" | "webhook_endpoint.deleted" | "webhook_endpoint.secret_rolled" | "webhook_endpoint.disabled";
        /** Only the rows at or after this time, an RFC 3339 time with an offset. */
        readonly audit_from: string;
        /** Only the rows before this time, an RFC 3339 time with an offset; after `from`. */
        readonly audit_to: string;
        /** Only this key (a UUID) of the caller's; another's is answered 404. */
        readonly usage_key_id: string;
        /** The sender's ECDSA P-256 / SHA-256 signature of the raw body, base64 DER. */
        readonly github_signature: string;
        /** The id of the sender's public key that made the signature. */
        readonly github_key_id: string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
/** Every operation of the API, by operation id. */
export interface operations {
    readonly listDeveloperKeys: {
        readonly parameters: {
            readonly query?: {
                /** How many items at most, 1 to 200. Default 100. */
                readonly limit?: components["parameters"]["limit"];
                /** The `next_cursor` of the previous page, as it is; none (or empty) for the first page. A cursor no listing gave out is answered 422 at `["query", "cursor"]`. */
                readonly cursor?: components["parameters"]["cursor"];
                /** Only keys whose name contains it, in any case, or whose `key_prefix` starts with it (`ak_Ab3`, or the display form `ak_Ab3xY...`); 1 to 100 characters, an empty one is none. */
                readonly q?: components["parameters"]["key_q"];
                /** Only keys of this status now: `active` (active and not expired, a roll's old key in its grace window too), `expired` (active, past `expires_at`), `revoked` (deactivated, whatever the reason), `leaked` (deactivated by a leak report: some of the revoked keys). */
                readonly status?: components["parameters"]["key_status"];
            };
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["DeveloperKeyList"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly createDeveloperKey: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody?: {
            readonly content: {
                readonly "application/json": components["schemas"]["CreateKeyBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 201: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["CreatedDeveloperKey"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 409: components["responses"]["Error409"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly getDeveloperKey: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly key_id: components["parameters"]["key_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["DeveloperKey"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly deactivateDeveloperKey: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly key_id: components["parameters"]["key_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["DeveloperKey"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly setDeveloperKeyExpiry: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly key_id: components["parameters"]["key_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["SetKeyExpiryBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["DeveloperKey"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 404: components["responses"]["Error404"];
            readonly 409: components["responses"]["Error409"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly listProjects: {
        readonly parameters: {
            readonly query?: {
                /** How many items at most, 1 to 200. Default 100. */
                readonly limit?: components["parameters"]["limit"];
                /** The `next_cursor` of the previous page, as it is; none (or empty) for the first page. A cursor no listing gave out is answered 422 at `["query", "cursor"]`. */
                readonly cursor?: components["parameters"]["cursor"];
            };
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["ProjectList"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly createProject: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["CreateProjectBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 201: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["CreatedProject"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly deleteProject: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    /** For an API key with credits, or of an identity with a pool: how many it can still spend (with both, the lower of the two). */
                    readonly "X-Credits-Remaining"?: string;
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Deleted"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly listApiKeys: {
        readonly parameters: {
            readonly query?: {
                /** How many items at most, 1 to 200. Default 100. */
                readonly limit?: components["parameters"]["limit"];
                /** The `next_cursor` of the previous page, as it is; none (or empty) for the first page. A cursor no listing gave out is answered 422 at `["query", "cursor"]`. */
                readonly cursor?: components["parameters"]["cursor"];
                /** Only keys whose name contains it, in any case, or whose `key_prefix` starts with it (`ak_Ab3`, or the display form `ak_Ab3xY...`); 1 to 100 characters, an empty one is none. */
                readonly q?: components["parameters"]["key_q"];
                /** Only keys of this status now: `active` (active and not expired, a roll's old key in its grace window too), `expired` (active, past `expires_at`), `revoked` (deactivated, whatever the reason), `leaked` (deactivated by a leak report: some of the revoked keys). */
                readonly status?: components["parameters"]["key_status"];
            };
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["ApiKeyList"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly createApiKey: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: {
            readonly content: {
                readonly "application/json": components["schemas"]["CreateApiKeyBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 201: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["CreatedApiKey"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly getApiKey: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
                readonly key_id: components["parameters"]["key_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["ApiKey"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly deactivateApiKey: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
                readonly key_id: components["parameters"]["key_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["ApiKey"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly setApiKeyExpiry: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
                readonly key_id: components["parameters"]["key_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["UpdateApiKeyBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["ApiKey"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 409: components["responses"]["Error409"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly createAccessToken: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: {
            readonly content: {
                readonly "application/json": components["schemas"]["NoFieldsBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 201: {
                headers: {
                    /** For an API key with credits, or of an identity with a pool: how many it can still spend (with both, the lower of the two). */
                    readonly "X-Credits-Remaining"?: string;
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["AccessToken"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly createGeneration: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody?: {
            readonly content: {
                readonly "application/json": components["schemas"]["GenerationBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 201: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Generation"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly deleteGeneration: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** A UUID; anything else is answered 422 `uuid_parsing`. */
                readonly generation_id: components["parameters"]["generation_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Deleted"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly rollDeveloperKey: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly key_id: components["parameters"]["key_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: {
            readonly content: {
                readonly "application/json": components["schemas"]["RollKeyBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 201: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["RolledDeveloperKey"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 404: components["responses"]["Error404"];
            readonly 409: components["responses"]["Error409"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly rollApiKey: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
                readonly key_id: components["parameters"]["key_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: {
            readonly content: {
                readonly "application/json": components["schemas"]["RollKeyBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 201: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["RolledApiKey"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 409: components["responses"]["Error409"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly activateDeveloperKey: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly key_id: components["parameters"]["key_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: {
            readonly content: {
                readonly "application/json": components["schemas"]["NoFieldsBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["DeveloperKey"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 404: components["responses"]["Error404"];
            readonly 409: components["responses"]["Error409"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly activateApiKey: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
                readonly key_id: components["parameters"]["key_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: {
            readonly content: {
                readonly "application/json": components["schemas"]["NoFieldsBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["ApiKey"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 409: components["responses"]["Error409"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly getDeveloperUsage: {
        readonly parameters: {
            readonly query?: {
                /** The start of the range, an RFC 3339 time with an offset. Default: 24 hours before `to`. Not older than the granularity is kept (minutes 7 days, hours 90, days 730 by default): 422 at `["query", "from"]`. */
                readonly from?: components["parameters"]["from"];
                /** The end of the range (exclusive), an RFC 3339 time with an offset. Default: now. At most 1440 buckets from `from`. */
                readonly to?: components["parameters"]["to"];
                /** The size of a bucket, in UTC. Default `hour`. */
                readonly granularity?: components["parameters"]["granularity"];
                /** Only this key (a UUID) of the caller's; another's is answered 404. */
                readonly key_id?: components["parameters"]["usage_key_id"];
            };
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Usage"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly getProjectUsage: {
        readonly parameters: {
            readonly query?: {
                /** The start of the range, an RFC 3339 time with an offset. Default: 24 hours before `to`. Not older than the granularity is kept (minutes 7 days, hours 90, days 730 by default): 422 at `["query", "from"]`. */
                readonly from?: components["parameters"]["from"];
                /** The end of the range (exclusive), an RFC 3339 time with an offset. Default: now. At most 1440 buckets from `from`. */
                readonly to?: components["parameters"]["to"];
                /** The size of a bucket, in UTC. Default `hour`. */
                readonly granularity?: components["parameters"]["granularity"];
                /** Only this key (a UUID) of the caller's; another's is answered 404. */
                readonly key_id?: components["parameters"]["usage_key_id"];
            };
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Usage"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly changeApiKeyCredits: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
                readonly key_id: components["parameters"]["key_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["ChangeCreditsBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["ApiKey"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly listIdentities: {
        readonly parameters: {
            readonly query?: {
                /** How many items at most, 1 to 200. Default 100. */
                readonly limit?: components["parameters"]["limit"];
                /** The `next_cursor` of the previous page, as it is; none (or empty) for the first page. A cursor no listing gave out is answered 422 at `["query", "cursor"]`. */
                readonly cursor?: components["parameters"]["cursor"];
                /** Only the identities whose `external_id` contains it, in any case (1 to 255 characters; never shaped like a key, 422 `key_shaped_value`). `external_id`, when given too, wins. */
                readonly q?: components["parameters"]["identity_q"];
                /** Only the identity with this `external_id` (1 to 255 characters, never shaped like a key): a page of it alone, or an empty page. */
                readonly external_id?: components["parameters"]["identity_external_id"];
            };
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["IdentityList"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly createIdentity: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["CreateIdentityBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 201: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Identity"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 409: components["responses"]["Error409"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly getIdentity: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
                readonly identity_id: components["parameters"]["identity_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Identity"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly deleteIdentity: {
        readonly parameters: {
            readonly query?: {
                /** `true`: revoke the identity's keys and delete it, in one transaction. Default `false`: an identity with keys is kept (409). */
                readonly revoke_keys?: components["parameters"]["revoke_keys"];
            };
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
                readonly identity_id: components["parameters"]["identity_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["DeletedIdentity"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 409: components["responses"]["Error409"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly updateIdentity: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
                readonly identity_id: components["parameters"]["identity_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["UpdateIdentityBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Identity"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly listIdentityKeys: {
        readonly parameters: {
            readonly query?: {
                /** How many items at most, 1 to 200. Default 100. */
                readonly limit?: components["parameters"]["limit"];
                /** The `next_cursor` of the previous page, as it is; none (or empty) for the first page. A cursor no listing gave out is answered 422 at `["query", "cursor"]`. */
                readonly cursor?: components["parameters"]["cursor"];
            };
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
                readonly identity_id: components["parameters"]["identity_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["ApiKeyList"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly getIdentityUsage: {
        readonly parameters: {
            readonly query?: {
                /** The start of the range, an RFC 3339 time with an offset. Default: 24 hours before `to`. Not older than the granularity is kept (minutes 7 days, hours 90, days 730 by default): 422 at `["query", "from"]`. */
                readonly from?: components["parameters"]["from"];
                /** The end of the range (exclusive), an RFC 3339 time with an offset. Default: now. At most 1440 buckets from `from`. */
                readonly to?: components["parameters"]["to"];
                /** The size of a bucket, in UTC. Default `hour`. */
                readonly granularity?: components["parameters"]["granularity"];
                /** Only this key (a UUID) of the caller's; another's is answered 404. */
                readonly key_id?: components["parameters"]["usage_key_id"];
            };
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
                readonly identity_id: components["parameters"]["identity_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Usage"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly changeIdentityCredits: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
                readonly identity_id: components["parameters"]["identity_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["ChangeCreditsBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Identity"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly reportLeakedKeys: {
        readonly parameters: {
            readonly query?: never;
            readonly header: {
                /** The sender's ECDSA P-256 / SHA-256 signature of the raw body, base64 DER. */
                readonly "GITHUB-PUBLIC-KEY-SIGNATURE": components["parameters"]["github_signature"];
                /** The id of the sender's public key that made the signature. */
                readonly "GITHUB-PUBLIC-KEY-IDENTIFIER": components["parameters"]["github_key_id"];
            };
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": readonly components["schemas"]["SecretScanningAlert"][];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": readonly components["schemas"]["SecretScanningFeedback"][];
                };
            };
            readonly 400: components["responses"]["Error400"];
            readonly 401: components["responses"]["Error401"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly verifyKey: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["VerifyKeyBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["VerifyKeyResult"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly listAuditLog: {
        readonly parameters: {
            readonly query?: {
                /** How many items at most, 1 to 200. Default 100. */
                readonly limit?: components["parameters"]["limit"];
                /** The `next_cursor` of the previous page, as it is; none (or empty) for the first page. A cursor no listing gave out is answered 422 at `["query", "cursor"]`. */
                readonly cursor?: components["parameters"]["cursor"];
                /** Only this project's rows: a project of the calling developer (404 for any other). */
                readonly project_id?: components["parameters"]["audit_project_id"];
                /** Only the rows about this key (a UUID): its creation, revocation, roll, expiry, policies, credits. */
                readonly key_id?: components["parameters"]["audit_key_id"];
                /** Only the rows about this identity (a UUID): its creation, changes, credits and deletion, and its keys' joining or leaving it. */
                readonly identity_id?: components["parameters"]["audit_identity_id"];
                /** Only the rows of this action. */
                readonly action?: components["parameters"]["audit_action"];
                /** Only the rows at or after this time, an RFC 3339 time with an offset. */
                readonly from?: components["parameters"]["audit_from"];
                /** Only the rows before this time, an RFC 3339 time with an offset; after `from`. */
                readonly to?: components["parameters"]["audit_to"];
            };
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["AuditLog"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly getOpenApiDocument: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": {
                        readonly openapi: string;
                    };
                };
            };
            readonly 500: components["responses"]["Error500"];
        };
    };
    readonly getHealth: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Health"];
                };
            };
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly listRoles: {
        readonly parameters: {
            readonly query?: {
                /** How many items at most, 1 to 200. Default 100. */
                readonly limit?: components["parameters"]["limit"];
                /** The `next_cursor` of the previous page, as it is; none (or empty) for the first page. A cursor no listing gave out is answered 422 at `["query", "cursor"]`. */
                readonly cursor?: components["parameters"]["cursor"];
            };
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["RoleList"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly createRole: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["CreateRoleBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 201: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Role"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 409: components["responses"]["Error409"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly getRole: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
                readonly role_id: components["parameters"]["role_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Role"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly deleteRole: {
        readonly parameters: {
            readonly query?: {
                /** `true`: take the role from every key that holds it and delete it, in one transaction. Default `false`: a role that keys hold is kept (409 `role_in_use`). */
                readonly detach?: components["parameters"]["detach"];
            };
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
                readonly role_id: components["parameters"]["role_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["DeletedRole"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 409: components["responses"]["Error409"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly updateRole: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly project_id: components["parameters"]["project_id"];
                readonly role_id: components["parameters"]["role_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["UpdateRoleBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Role"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 403: components["responses"]["Error403"];
            readonly 404: components["responses"]["Error404"];
            readonly 409: components["responses"]["Error409"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly listWebhookEndpoints: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["WebhookEndpointList"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly createWebhookEndpoint: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["CreateWebhookEndpointBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 201: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 409: components["responses"]["Error409"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly getWebhookEndpoint: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly endpoint_id: components["parameters"]["endpoint_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly deleteWebhookEndpoint: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly endpoint_id: components["parameters"]["endpoint_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Deleted"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly updateWebhookEndpoint: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly endpoint_id: components["parameters"]["endpoint_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["UpdateWebhookEndpointBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 404: components["responses"]["Error404"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly rollWebhookSecret: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly endpoint_id: components["parameters"]["endpoint_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: {
            readonly content: {
                readonly "application/json": components["schemas"]["RollWebhookSecretBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 404: components["responses"]["Error404"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly listWebhookAttempts: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly endpoint_id: components["parameters"]["endpoint_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["WebhookAttemptList"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly redeliverWebhook: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly endpoint_id: components["parameters"]["endpoint_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["RedeliverWebhookBody"];
            };
        };
        readonly responses: {
            /** Success. */
            readonly 202: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["WebhookRedeliveryResult"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 404: components["responses"]["Error404"];
            readonly 413: components["responses"]["Error413"];
            readonly 415: components["responses"]["Error415"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
    readonly sendWebhookTest: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                readonly endpoint_id: components["parameters"]["endpoint_id"];
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** Success. */
            readonly 202: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["WebhookTestResult"];
                };
            };
            readonly 401: components["responses"]["Error401"];
            readonly 404: components["responses"]["Error404"];
            readonly 422: components["responses"]["Error422"];
            readonly 429: components["responses"]["Error429"];
            readonly 500: components["responses"]["Error500"];
            readonly 503: components["responses"]["Error503"];
        };
    };
}
