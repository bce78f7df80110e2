import { apiKey, developerKey, error, get, type HttpCase, ROUTES, unknownKey } from './case.js'
import { CONFORMANCE_TOKEN } from './world.js'

const API = ['header', 'x-api-key'] as const
const DEV = ['header', 'x-developer-key'] as const
const AUTH = ['header', 'authorization'] as const
const CHARS = "keys use only A-Z, a-z, 0-9, '-' and '_'."
const P1 = ROUTES.project('proj-1')

/** A project route answers `key_malformed` at `x-api-key` with `msg` for the value `make(p1)`. */
const malformed = (name: string, make: (p1: string) => string, msg: string): HttpCase => ({
  name,
  request: (w) => get(P1, apiKey(make(w.keys.p1))),
  expect: error(401, 'key_malformed', API, msg),
})

const bearer = (
  name: string,
  value: string | string[] | undefined,
  expect: HttpCase['expect'],
): HttpCase => ({
  name,
  request: () =>
    get(
      ROUTES.bearer,
      ...(value === undefined ? [] : [value].flat().map((v) => ['Authorization', v] as const)),
    ),
  expect,
})

const TOKEN_OK: HttpCase['expect'] = {
  status: 200,
  check: (body) => {
    if (
      JSON.stringify(body) !== JSON.stringify({ auth: { scope: 'bearer', claims: { projectId: 'proj-1' } } })
    ) {
      throw new Error(`unexpected bearer context ${JSON.stringify(body)}`)
    }
  },
}

/** Reading credentials: every error type of a failed check, and the bad-input list. */
export const credentialCases: readonly HttpCase[] = [
  { name: 'API key: valid', request: (w) => get(P1, apiKey(w.keys.p1)), expect: { status: 200 } },
  {
    name: 'API key: absent',
    request: () => get(P1),
    expect: error(401, 'key_missing', API, "Send the project's API key in the X-API-Key header."),
  },
  {
    name: 'API key: empty (length 0)',
    request: () => get(P1, apiKey('')),
    expect: error(401, 'key_missing', API),
  },
  malformed('API key: length 15', () => 'ak_abcdefghijkl', 'Expected at least 16 characters, got 15.'),
  malformed('API key: length 34', (k) => k.slice(0, 34), 'Expected 35 characters, got 34.'),
  malformed('API key: length 36', (k) => `${k}x`, 'Expected 35 characters, got 36.'),
  malformed('API key: length 10,000', () => `ak_${'a'.repeat(9997)}`, 'Expected 35 characters, got 10000.'),
  malformed(
    'API key: a TAB inside',
    (k) => `${k.slice(0, 10)}\t${k.slice(11)}`,
    `Character 11 is not allowed: ${CHARS}`,
  ),
  malformed(
    'API key: non-ASCII (UTF-8 bytes read as Latin-1)',
    (k) => `${k.slice(0, 34)}é`,
    'Expected 35 characters, got 36.',
  ),
  malformed(
    'API key: non-ASCII at 35 bytes',
    (k) => `${k.slice(0, 33)}é`,
    `Character 34 is not allowed: ${CHARS}`,
  ),
  {
    name: 'API key: wrong prefix',
    request: (w) => get(P1, apiKey(`xk_${w.keys.p1.slice(3)}`)),
    expect: error(401, 'key_malformed', API),
  },
  malformed(
    'API key: dk_ prefix',
    (k) => `dk_${k.slice(3)}`,
    'API keys start with ak_; dk_ is the legacy prefix of developer keys.',
  ),
  {
    name: 'API key: leading and trailing spaces are stripped by HTTP (RFC 9110 OWS)',
    request: (w) => get(P1, apiKey(` ${w.keys.p1}  `)),
    expect: { status: 200 },
  },
  {
    name: 'API key: NUL is refused by the server',
    request: (w) => get(P1, apiKey(`${w.keys.p1.slice(0, 10)}\0${w.keys.p1.slice(11)}`)),
    expect: { refusedByServer: 400 },
  },
  {
    name: 'API key: a 17 KB header is refused by the server',
    request: (w) => get(P1, apiKey(w.keys.p1), ['X-Padding', 'p'.repeat(17 * 1024)]),
    expect: { refusedByServer: 431 },
  },
  {
    name: 'API key: in the query string only',
    request: (w) => get(`${P1}?api_key=${w.keys.p1}`),
    expect: error(
      401,
      'key_missing',
      API,
      'Keys are never read from the query string: send the API key in the X-API-Key header.',
    ),
  },
  {
    name: 'API key: two X-API-Key headers',
    request: (w) => get(P1, apiKey(w.keys.p1), apiKey(w.keys.p1)),
    expect: error(401, 'key_malformed', API, 'Send exactly one API key in one X-API-Key header.'),
  },
  {
    name: 'API key: one header with a comma-separated list',
    request: (w) => get(P1, apiKey(`${w.keys.p1},${w.keys.p2}`)),
    expect: error(401, 'key_malformed', API, 'Send exactly one API key in one X-API-Key header.'),
  },
  {
    name: 'API key: header name in another case',
    request: (w) => get(P1, ['x-aPi-KeY', w.keys.p1]),
    expect: { status: 200 },
  },
  {
    name: 'API key: unknown',
    request: () => get(P1, apiKey(unknownKey())),
    expect: error(401, 'key_invalid', API),
  },
  {
    name: 'API key: deactivated',
    request: (w) => get(P1, apiKey(w.inactiveKey)),
    expect: error(401, 'key_invalid', API),
  },
  {
    name: 'API key: a developer key sent as X-API-Key',
    request: (w) => get(P1, apiKey(w.keys.d1)),
    expect: error(401, 'key_wrong_type', API),
  },
  {
    name: 'API key: of another project',
    request: (w) => get(P1, apiKey(w.keys.p2)),
    expect: error(403, 'project_mismatch', API),
  },
  {
    name: 'API key: the store is down (fails closed)',
    request: (w) => {
      w.setStoreDown(true)
      return get(P1, apiKey(w.keys.p1))
    },
    expect: error(503, 'store_unavailable', []),
  },
  {
    name: 'developer key: valid',
    request: (w) => get(ROUTES.developer, developerKey(w.keys.d1)),
    expect: { status: 200 },
  },
  {
    name: 'developer key: absent',
    request: () => get(ROUTES.developer),
    expect: error(401, 'key_missing', DEV, 'Send the developer key in the X-Developer-Key header.'),
  },
  {
    name: 'developer key: in the query string only',
    request: (w) => get(`${ROUTES.developer}?developer_key=${w.keys.d1}`),
    expect: error(
      401,
      'key_missing',
      DEV,
      'Keys are never read from the query string: send the developer key in the X-Developer-Key header.',
    ),
  },
  {
    name: 'developer key: two X-Developer-Key headers',
    request: (w) => get(ROUTES.developer, developerKey(w.keys.d1), developerKey(w.keys.d2)),
    expect: error(401, 'key_malformed', DEV, 'Send exactly one developer key in one X-Developer-Key header.'),
  },
  {
    name: 'developer key: an API key sent as X-Developer-Key',
    request: (w) => get(ROUTES.developer, developerKey(w.keys.p1)),
    expect: error(401, 'key_wrong_type', DEV),
  },
  {
    name: 'developer key: dk_ while the policy rejects it',
    request: (w) => get(ROUTES.developer, developerKey(w.legacyKey)),
    expect: error(401, 'key_legacy_prefix', DEV),
  },
  {
    name: 'developer key: a registered dk_ key while the policy accepts it',
    policy: 'accept',
    request: (w) => get(ROUTES.developer, developerKey(w.legacyKey)),
    expect: { status: 200 },
  },
  {
    name: 'developer key: an unknown dk_ key while the policy accepts it',
    policy: 'accept',
    request: () => get(ROUTES.developer, developerKey(`dk_${unknownKey().slice(3)}`)),
    expect: error(401, 'key_invalid', DEV),
  },
  {
    name: 'developer key: a short dk_ key while the policy accepts it',
    policy: 'accept',
    request: () => get(ROUTES.developer, developerKey('dk_abcdefghijkl')),
    expect: error(401, 'key_malformed', DEV, 'Expected at least 16 characters, got 15.'),
  },
  {
    name: 'owner: the developer owns the project',
    request: (w) => get(ROUTES.owner('proj-1'), developerKey(w.keys.d1)),
    expect: { status: 200 },
  },
  {
    name: 'owner: another developer',
    request: (w) => get(ROUTES.owner('proj-1'), developerKey(w.keys.d2)),
    expect: error(403, 'not_project_owner', DEV),
  },
  {
    name: 'owner: no such project',
    request: (w) => get(ROUTES.owner('proj-404'), developerKey(w.keys.d1)),
    expect: error(404, 'not_found', ['path', 'project_id']),
  },
  {
    name: 'elevated: both keys',
    request: (w) => ({
      method: 'POST',
      path: ROUTES.elevated('proj-1'),
      headers: [developerKey(w.keys.d1), apiKey(w.keys.p1)],
    }),
    expect: { status: 200 },
  },
  {
    name: 'elevated: the developer key missing',
    request: (w) => ({ method: 'POST', path: ROUTES.elevated('proj-1'), headers: [apiKey(w.keys.p1)] }),
    expect: error(401, 'key_missing', DEV),
  },
  {
    name: 'elevated: the API key missing',
    request: (w) => ({ method: 'POST', path: ROUTES.elevated('proj-1'), headers: [developerKey(w.keys.d1)] }),
    expect: error(401, 'key_missing', API),
  },
  {
    name: 'elevated: a developer who does not own the project',
    request: (w) => ({
      method: 'POST',
      path: ROUTES.elevated('proj-1'),
      headers: [developerKey(w.keys.d2), apiKey(w.keys.p1)],
    }),
    expect: error(403, 'not_project_owner', DEV),
  },
  {
    name: 'elevated: an API key of another project',
    request: (w) => ({
      method: 'POST',
      path: ROUTES.elevated('proj-2'),
      headers: [developerKey(w.keys.d2), apiKey(w.keys.p1)],
    }),
    expect: error(403, 'project_mismatch', API),
  },
  bearer('bearer: valid', `Bearer ${CONFORMANCE_TOKEN}`, TOKEN_OK),
  bearer('bearer: scheme in lower case', `bearer ${CONFORMANCE_TOKEN}`, TOKEN_OK),
  bearer('bearer: scheme in upper case', `BEARER ${CONFORMANCE_TOKEN}`, TOKEN_OK),
  bearer('bearer: two spaces (RFC 6750 allows 1*SP)', `Bearer  ${CONFORMANCE_TOKEN}`, TOKEN_OK),
  bearer('bearer: absent', undefined, error(401, 'token_missing', AUTH, undefined, 'Bearer')),
  bearer('bearer: Bearer alone', 'Bearer', error(401, 'token_missing', AUTH, undefined, 'Bearer')),
  bearer(
    'bearer: Basic',
    'Basic dXNlcjpwYXNzd29yZA==',
    error(401, 'token_missing', AUTH, undefined, 'Bearer'),
  ),
  bearer(
    'bearer: two tokens',
    `Bearer ${CONFORMANCE_TOKEN} ${CONFORMANCE_TOKEN}`,
    error(401, 'token_invalid', AUTH, undefined, 'Bearer error="invalid_token"'),
  ),
  bearer(
    'bearer: two Authorization headers',
    [`Bearer ${CONFORMANCE_TOKEN}`, `Bearer ${CONFORMANCE_TOKEN}`],
    error(
      401,
      'token_invalid',
      AUTH,
      'Send one Authorization header with one Bearer token.',
      'Bearer error="invalid_token"',
    ),
  ),
  bearer(
    'bearer: unknown token',
    'Bearer not-a-token',
    error(401, 'token_invalid', AUTH, undefined, 'Bearer error="invalid_token"'),
  ),
  {
    name: 'bearer: in the query string only',
    request: () => get(`${ROUTES.bearer}?access_token=${CONFORMANCE_TOKEN}`),
    expect: error(
      401,
      'token_missing',
      AUTH,
      'Access tokens are never read from the query string: send Authorization: Bearer <token>.',
      'Bearer',
    ),
  },
  {
    name: 'a KeywardError thrown by a route, through the adapter error handler',
    request: () => get(ROUTES.throws),
    expect: error(404, 'not_found', ['path', 'generation_id'], 'Generation not found.'),
  },
]
