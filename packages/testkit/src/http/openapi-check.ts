import { type OpenApiDocument, openApiDocument } from '@keyward/core'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

// ajv-formats is CommonJS: its default export is the function, or holds it.
const addFormats = ((addFormatsModule as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020

type Json = Readonly<Record<string, unknown>>

/** What {@link ResponseChecker.check} found. */
export type ResponseCheck =
  | { readonly documented: false }
  | { readonly documented: true; readonly operation: string; readonly problems: readonly string[] }

/** Checks HTTP answers against an OpenAPI document. */
export interface ResponseChecker {
  /**
   * Finds the operation of `method` and `path` (query ignored) and checks that `status` is one
   * of its responses and that `body` (JSON text) matches that response's schema. Paths the
   * document does not hold answer `{ documented: false }`.
   */
  check(method: string, path: string, status: number, body: string): ResponseCheck
}

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * A checker of answers against an OpenAPI 3.1 document (default: Keyward's own, from
 * `openApiDocument()`), with Ajv's JSON Schema 2020-12 validator, the dialect of OpenAPI 3.1.
 *
 * @example
 * ```ts
 * const checker = responseChecker()
 * const result = checker.check('GET', '/healthz', 200, '{"status":"ok"}')
 * if (result.documented) expect(result.problems).toEqual([])
 * ```
 */
export function responseChecker(document: OpenApiDocument = openApiDocument()): ResponseChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  const id = 'keyward-openapi.json'
  ajv.addSchema({ ...document, $id: id }, id)
  const paths = document.paths as Record<string, Record<string, Json>>
  const components = document.components as { responses: Record<string, Json> }
  const routes = Object.keys(paths).map((template) => ({
    template,
    pattern: new RegExp(
      `^${template
        .split(/\{\w+\}/)
        .map(literal)
        .join('[^/]+')}$`,
    ),
  }))

  return {
    check(method, path, status, body) {
      const bare = path.split('?')[0] ?? path
      const route = routes.find((r) => r.pattern.test(bare) && paths[r.template]?.[method.toLowerCase()])
      if (!route) return { documented: false }
      const operation = `${method.toUpperCase()} ${route.template}`
      const responses = paths[route.template]![method.toLowerCase()]!.responses as Record<string, Json>
      let response = responses[String(status)]
      if (response === undefined) {
        return { documented: true, operation, problems: [`status ${status} is not documented`] }
      }
      let base = ['paths', route.template, method.toLowerCase(), 'responses', String(status)]
      const ref = response.$ref
      if (typeof ref === 'string') {
        const name = ref.split('/').pop()!
        response = components.responses[name]!
        base = ['components', 'responses', name]
      }
      const validate = ajv.getSchema(`${id}#/${pointer(...base, 'content', 'application/json', 'schema')}`)
      if (!validate) return { documented: true, operation, problems: ['no JSON schema for this response'] }
      let value: unknown
      try {
        value = JSON.parse(body)
      } catch {
        return { documented: true, operation, problems: ['the body is not JSON'] }
      }
      if (validate(value)) return { documented: true, operation, problems: [] }
      const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`)
      return { documented: true, operation, problems }
    },
  }
}
