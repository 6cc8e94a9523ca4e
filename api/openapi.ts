// The OpenAPI document of the API (docs/monitoring.md): served at /api/docs/json, read by Swagger UI at /api/docs.
// It is the user's reference, so its texts say what a caller needs without pointing to documents a clone lacks.
import type { SwaggerOptions } from '@fastify/swagger'

const TOKEN_URL = '/api/oauth/token'

const description = `Users, companies, systems, their data and messages, and bulk operations of a cellular IoT fleet.

**Authentication.** Get an access token at \`${TOKEN_URL}\` (OAuth 2: \`password\` grant with your e-mail, or
\`client_credentials\`; the API client's id and secret in an HTTP Basic header, the form or the query) and send it as
\`Authorization: Bearer <token>\` (or the query parameter \`access_token\`). In this page, **Authorize** gets one for you.
Devices use HTTP Basic on \`/device/*\`.

**Errors.** A refused request changes nothing and answers JSON: 400 \`{"error": "<code>", "errorParameters": [...]}\`
for business and validation errors, 401 \`{"error": "invalid_token", ...}\`, 403 \`missing.rights\`, 404 \`not.found\`
(unknown route), 429 \`rate.limit.exceeded\` with \`Retry-After\`, 503 \`service.unavailable\` with \`Retry-After\`
(overloaded or the store connection lost: nothing changed, try again).

**Lists.** \`offset\` (default 0) and \`size\` (default 100, at most 500) page a list answered as
\`{items, count, size, offset}\`; \`fields=a,b\` picks attributes; \`orderBy=<field>[:asc|:desc]\` sorts. Multi-valued
parameters are comma separated or repeated. Timestamps are epoch milliseconds (seconds and microseconds are
recognised and converted).

**Live stream.** \`GET /api/v1/stream\` is a WebSocket (not listed below: OpenAPI does not describe WebSockets) with
the same token (header, or \`access_token\` in the query) and \`company\` parameter. Send
\`{"action": "subscribe", "systems": {"uids": [...]} | {"label": "..."} | {"criteria": {<filters of GET /api/v1/systems>}}, "dataIds": [...]}\`
or \`{"action": "subscribe", "operations": {"uids": [...]} | {"all": true}}\`, and \`{"action": "unsubscribe", "subscription": "<id>"}\`;
receive \`{"event": "points", system, dataId, ts, v}\`, \`{"event": "commStatus", system, status, lastCommDate}\`,
\`{"event": "message", system, uid, protocol, timestamp}\`, \`{"event": "operation", uid, type, state, counters}\` as they are
committed, and \`{"event": "error", error, errorParameters}\` for a refused command. Subscriptions need
\`entities.systems.view\`; a client too slow to read is closed with code 4008, an expired or revoked token with 4401.`

const tags = [
  { name: 'oauth', description: 'Access tokens (OAuth 2)' },
  { name: 'users', description: 'The caller, the users of a company and their rights' },
  { name: 'companies', description: 'Company details, administrators and picture' },
  { name: 'systems', description: 'Systems: a gateway, a SIM subscription and applications' },
  { name: 'data', description: 'Time series of the systems: last values, raw, aggregated and fleet points' },
  { name: 'messages', description: 'Messages received from the devices' },
  { name: 'applications', description: 'The application catalogue: public applications and the company\'s own, their communication and data' },
  { name: 'templates', description: 'Setting templates: named settings a company applies to its systems' },
  { name: 'operations', description: 'Asynchronous bulk operations on systems, their tasks and files' },
  { name: 'alerts', description: 'Alert rules (AirVantage v2) and their hooks' },
  { name: 'devices', description: 'The REST device API (HTTP Basic): send data, read tasks, acknowledge them' }
]

// The Authorize button of Swagger UI fetches a token itself through these flows (docs/api.md#get-a-token);
// `bearer` stays for a token pasted by hand, `basic` is the devices' scheme (docs/devices.md).
const securitySchemes = {
  oauth2: {
    type: 'oauth2',
    description: 'Password grant (your e-mail and password) or client credentials (the API client\'s id and secret)',
    flows: {
      password: { tokenUrl: TOKEN_URL, refreshUrl: TOKEN_URL, scopes: {} },
      clientCredentials: { tokenUrl: TOKEN_URL, refreshUrl: TOKEN_URL, scopes: {} }
    }
  },
  bearer: { type: 'http', scheme: 'bearer', description: 'An access token from /api/oauth/token, pasted' },
  basic: { type: 'http', scheme: 'basic', description: 'Devices: the gateway serial number or IMEI, and the system\'s communication password of the protocol' }
}

type Json = Record<string, unknown>

/**
 * Merges the doc-only `x-allowed` annotations (api/schemas/common.schema.ts `documented`) into their schemas, so
 * that the document shows enum, pattern, minimum, maximum and default where validation leaves them to the service.
 */
export function withAllowedValues<T> (doc: T): T {
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) { node.forEach(walk); return }
    if (node === null || typeof node !== 'object') return
    const o = node as Json
    const allowed = o['x-allowed']
    if (allowed !== null && typeof allowed === 'object') {
      delete o['x-allowed']
      Object.assign(o, allowed)
    }
    Object.values(o).forEach(walk)
  }
  walk(doc)
  return doc
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch']
const word = (w: string): string => w.charAt(0).toUpperCase() + w.slice(1)

/**
 * An operationId for every operation (client generators name their methods after it): the method and the path
 * without its version prefix, `{uid}` read as `ByUid`, e.g. GET /api/v1/systems/{uid} → getSystemsByUid.
 */
export function withOperationIds<T> (doc: T): T {
  const paths = (doc as { paths?: Record<string, Record<string, Json>> }).paths ?? {}
  for (const [path, ops] of Object.entries(paths)) {
    const name = path.replace(/^\/api(\/v1)?/, '').split('/').filter((s) => s !== '')
      .map((s) => s.startsWith('{') ? `By${word(s.slice(1, -1))}` : s.split(/[^A-Za-z0-9]/).map(word).join('')).join('')
    for (const [method, op] of Object.entries(ops)) {
      if (METHODS.includes(method) && op.operationId === undefined) op.operationId = `${method}${name}`
    }
  }
  return doc
}

export const openapiOptions: SwaggerOptions = {
  openapi: {
    // 3.1: the schemas are JSON Schema 2020-12 as written (type null, examples), which clients can validate with.
    openapi: '3.1.0',
    info: { title: 'Fleet service API', version: '1', description },
    tags,
    components: { securitySchemes: securitySchemes as never },
    security: [{ oauth2: [] }, { bearer: [] }]
  },
  // Shared schemas (the error bodies) appear under their own names in components.schemas.
  refResolver: {
    buildLocalReference: (json, _baseUri, _fragment, i) => typeof json.$id === 'string' ? json.$id : `def-${i}`
  },
  // The generated document shares objects with the route schemas: annotate a copy.
  transformObject: (documentObject) => withOperationIds(withAllowedValues(structuredClone('openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject)))
}
