// The JSON bodies of the Keyward HTTP API, field for field as on the wire (snake_case), read
// from the types that openapi-typescript generates from the server's OpenAPI document
// (./openapi.ts): the client and the server cannot drift. Timestamps are ISO 8601 strings.
import type { components } from './openapi.js'

type Schemas = components['schemas']

/** A developer key as listed: no `key`. */
export type DeveloperKeyInfo = Schemas['DeveloperKey']

/** A project's API key as listed: no `key`. */
export type ApiKeyInfo = Schemas['ApiKey']

/** The fields every key listing and key creation carries. A listing never holds the key. */
export type KeyInfoBase = Omit<DeveloperKeyInfo, 'developer_id'>

/** A developer key just created: `key` is the full key, shown this once and never again. */
export type CreatedDeveloperKey = Schemas['CreatedDeveloperKey']

/** An API key just created: `key` is the full key, shown this once and never again. */
export type CreatedApiKey = Schemas['CreatedApiKey']

/** The body of a key listing. */
export interface KeyList<K extends KeyInfoBase> {
  readonly keys: readonly K[]
}

/** A project. */
export type Project = Schemas['Project']

/** The answer to creating a project: the project and its default API key (named `default`). */
export type CreatedProject = Schemas['CreatedProject']

/** The answer to a deletion. */
export type Deleted = Schemas['Deleted']

/** A short-lived bearer token for one project. */
export type AccessToken = Schemas['AccessToken']

/** A generation. */
export type Generation = Schemas['Generation']

/** The answer of `GET /healthz` when the server and its store are up. */
export type Health = Schemas['Health']

/** The body of key creation requests: a name (1 to 100 characters), all fields optional. */
export type NameBody = Schemas['CreateKeyBody']

/** The body of project creation. */
export type CreateProjectBody = Schemas['CreateProjectBody']

/** The body of every error answer: `{"detail": [{"loc", "msg", "type"}]}`. */
export type ErrorBody = Schemas['ErrorBody']

/** Every operation of the API by path and method, as openapi-typescript writes them. */
export type { components as ApiComponents, paths as ApiPaths } from './openapi.js'
