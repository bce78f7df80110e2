// The source of packages/client/src/openapi.ts, from an OpenAPI document (openapi-typescript).
import openapiTS, { astToString } from 'openapi-typescript'

const HEADER = `// Generated from Keyward's OpenAPI document by openapi-typescript (pnpm openapi:types).
// Do not edit: the client's types are read from here, and a test checks that it is current.
`

// TSDoc, not JSDoc: the descriptions as plain comment text, without `@description` and `@constant`.
const tsdoc = (source) =>
  source
    .replace(/^\s*\/\*\* @constant \*\/\n/gm, '')
    .replace(/^(\s*\*) @constant\n/gm, '')
    .replaceAll('@description ', '')
    .replace(
      /^export interface paths \{/m,
      '/** Every operation of the API, by path and method. */\nexport interface paths {',
    )
    .replace(
      /^export interface components \{/m,
      "/** The API's schemas, error responses, parameters. */\nexport interface components {",
    )
    .replace(
      /^export interface operations \{/m,
      '/** Every operation of the API, by operation id. */\nexport interface operations {',
    )

/** The TypeScript declarations of `document`'s paths and schemas, read-only. */
export async function clientTypesSource(document) {
  return HEADER + tsdoc(astToString(await openapiTS(structuredClone(document), { immutable: true })))
}
