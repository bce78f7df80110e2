// The source of packages/client/src/openapi.ts, from an OpenAPI document (openapi-typescript).
import openapiTS, { astToString } from 'openapi-typescript'

const HEADER = `// Generated from Keyward's OpenAPI document by openapi-typescript (pnpm openapi:types).
// Do not edit: the client's types are read from here, and a test checks that it is current.
`

/** The TypeScript declarations of `document`'s paths and schemas, read-only. */
export async function clientTypesSource(document) {
  return HEADER + astToString(await openapiTS(structuredClone(document), { immutable: true }))
}
