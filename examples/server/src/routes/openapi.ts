import { openApiDocument } from '@keyward/core'
import { Hono } from 'hono'

/** `GET /openapi.json`: the OpenAPI 3.1 document of every endpoint, as Keyward's core builds it. */
export function openApiRoutes(): Hono {
  const document = JSON.stringify(openApiDocument({ title: 'Keyward reference server' }))
  return new Hono().get('/openapi.json', (c) =>
    c.body(document, 200, { 'content-type': 'application/json; charset=utf-8' }),
  )
}
