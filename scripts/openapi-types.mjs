// Writes the client's types from Keyward's OpenAPI document (openapi-typescript), so that the
// client and the server cannot drift: packages/client/src/openapi.test.ts fails while the file
// differs from what this writes. Run with `pnpm openapi:types` (it builds core first).
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { openApiDocument } from '../packages/core/dist/index.js'
import { clientTypesSource } from './openapi-source.mjs'

const target = fileURLToPath(new URL('../packages/client/src/openapi.ts', import.meta.url))
writeFileSync(target, await clientTypesSource(openApiDocument()))
console.log(`Wrote ${target}`)
