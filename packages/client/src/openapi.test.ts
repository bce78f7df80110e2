import { readFileSync } from 'node:fs'
import { type ErrorType, openApiDocument } from '@keyward/core'
import { describe, expect, expectTypeOf, it } from 'vitest'
// @ts-expect-error: a plain module of the repository's scripts, without declarations
import { clientTypesSource } from '../../../scripts/openapi-source.mjs'
import type { KeywardClient } from './client.js'
import type { KeywardApiError } from './errors.js'
import type { ApiPaths } from './types.js'

type Success<
  P extends keyof ApiPaths,
  M extends 'get' | 'post' | 'delete',
  S extends number,
> = ApiPaths[P][M] extends { responses: { [K in S]: { content: { 'application/json': infer B } } } }
  ? B
  : never
type Result<F> = F extends (...args: never[]) => Promise<infer R> ? R : never

describe("the client's types", () => {
  it('are what openapi-typescript generates from the current OpenAPI document (pnpm openapi:types)', async () => {
    const committed = readFileSync(new URL('./openapi.ts', import.meta.url), 'utf8')
    expect(committed).toBe(await clientTypesSource(openApiDocument()))
  })

  it("are the document's answers, operation by operation", () => {
    type C = KeywardClient
    expectTypeOf<Result<C['developerKeys']['create']>>().toEqualTypeOf<
      Success<'/api/v1/auth/developer-keys', 'post', 201>
    >()
    expectTypeOf<Result<C['developerKeys']['deactivate']>>().toEqualTypeOf<
      Success<'/api/v1/auth/developer-keys/{key_id}', 'delete', 200>
    >()
    expectTypeOf<Result<C['projects']['create']>>().toEqualTypeOf<Success<'/api/v1/projects', 'post', 201>>()
    expectTypeOf<Result<C['apiKeys']['create']>>().toEqualTypeOf<
      Success<'/api/v1/projects/{project_id}/api-keys', 'post', 201>
    >()
    expectTypeOf<Result<C['accessTokens']['create']>>().toEqualTypeOf<
      Success<'/api/v1/projects/{project_id}/access-tokens', 'post', 201>
    >()
    expectTypeOf<Result<C['generations']['create']>>().toEqualTypeOf<
      Success<'/api/v1/generation/generations-v2', 'post', 201>
    >()
    expectTypeOf<Result<C['health']>>().toEqualTypeOf<Success<'/healthz', 'get', 200>>()
  })

  it("types an API error's `type` as the union of Keyward's error types", () => {
    expectTypeOf<KeywardApiError['type']>().toEqualTypeOf<ErrorType | null>()
    expectTypeOf<'key_invalid'>().toExtend<NonNullable<KeywardApiError['type']>>()
    expectTypeOf<'no_such_type'>().not.toExtend<NonNullable<KeywardApiError['type']>>()
  })
})
