// The JSON bodies of the Keyward HTTP API, field for field as on the wire (snake_case).
// Timestamps are ISO 8601 strings, as JSON carries them.

/** The fields every key listing and key creation carries. A listing never holds the key. */
export interface KeyInfoBase {
  /** The key record's id: what deactivation takes. */
  readonly id: string
  /** The first 8 characters of the key (`ak_` plus 5): for display, not unique. */
  readonly key_prefix: string
  /** `key_prefix` followed by `...`, e.g. `ak_Ab3xY...`. */
  readonly display: string
  /** The descriptive name given at creation, or `null`. */
  readonly name: string | null
  /** Only active keys authenticate. */
  readonly active: boolean
  /** When the key was issued (ISO 8601). */
  readonly created_at: string
  /** When the key stops working (ISO 8601), or `null` for never. */
  readonly expires_at: string | null
  /** When the key last authenticated (ISO 8601, recorded at most once a minute), or `null`. */
  readonly last_used_at: string | null
  /** The key is older than the server's rotation period (90 days by default): roll it. */
  readonly rotation_due: boolean
}

/** A developer key as listed: no `key`. */
export interface DeveloperKeyInfo extends KeyInfoBase {
  readonly developer_id: string
}

/** A project's API key as listed: no `key`. */
export interface ApiKeyInfo extends KeyInfoBase {
  readonly project_id: string
}

/** A developer key just created: `key` is the full key, shown this once and never again. */
export interface CreatedDeveloperKey extends DeveloperKeyInfo {
  readonly key: string
}

/** An API key just created: `key` is the full key, shown this once and never again. */
export interface CreatedApiKey extends ApiKeyInfo {
  readonly key: string
}

/** The old key of a roll: its id and when it stops working (the end of the grace window). */
export interface PreviousKey {
  readonly id: string
  readonly expires_at: string | null
}

/** A developer key just rolled: the new key, shown once, and the key it replaces. */
export interface RolledDeveloperKey extends CreatedDeveloperKey {
  readonly previous_key: PreviousKey
}

/** An API key just rolled: the new key, shown once, and the key it replaces. */
export interface RolledApiKey extends CreatedApiKey {
  readonly previous_key: PreviousKey
}

/** The body of a key listing. */
export interface KeyList<K extends KeyInfoBase> {
  readonly keys: readonly K[]
}

/** A project. */
export interface Project {
  readonly id: string
  readonly name: string
  readonly developer_id: string
  /** ISO 8601. */
  readonly created_at: string
}

/** The answer to creating a project: the project and its default API key (named `default`). */
export interface CreatedProject {
  readonly project: Project
  readonly api_key: CreatedApiKey
}

/** The answer to a deletion. */
export interface Deleted {
  readonly id: string
  readonly deleted: true
}

/** A short-lived bearer token for one project. */
export interface AccessToken {
  /** Send it as `Authorization: Bearer <access_token>`. */
  readonly access_token: string
  readonly token_type: 'bearer'
  /** Lifetime in seconds. */
  readonly expires_in: number
}

/** A generation. */
export interface Generation {
  /** A UUID. */
  readonly id: string
  readonly project_id: string
  /** ISO 8601. */
  readonly created_at: string
}

/** The answer of `GET /healthz` when the server and its store are up. */
export interface Health {
  readonly status: 'ok'
}

/** The body of key and project creation requests. */
export interface NameBody {
  /** 1 to 100 characters. */
  readonly name?: string
}

/** The body of key creation: a name and an optional expiry (one of the two fields). */
export interface CreateKeyBody extends NameBody {
  /** When the key expires: an ISO 8601 time with an offset, in the future. */
  readonly expires_at?: string
  /** The key expires this many days from now, 1 to 3650. */
  readonly expires_in_days?: number
}

/** The body of a roll. */
export interface RollKeyBody {
  /** How long the old key keeps working, 0 to 604800 seconds. Default 86400 (a day). */
  readonly grace_seconds?: number
}

/** The body of project creation. */
export interface CreateProjectBody {
  /** 1 to 100 characters. */
  readonly name: string
}
