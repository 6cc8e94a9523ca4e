// The hawkBit DDI endpoints in the OpenAPI document (docs/protocols/ddi.md). Bodies are read by the DDI readers
// (ddi-json.ts), never by a JSON schema; answers are written as text, so these schemas describe and do not serialise.
const error = (description: string) => ({ $ref: 'ErrorBody#', description })

const params = {
  type: 'object',
  properties: {
    tenant: { type: 'string', description: 'The company uid, or DEFAULT for the company the service was first started with' },
    controllerId: { type: 'string', description: 'The gateway serial number (or IMEI)' }
  }
}
const withId = { ...params, properties: { ...params.properties, id: { type: 'string', description: 'The action id (an integer)' } } }

const refused = {
  401: error('device.unauthorized: no TargetToken, or a wrong tenant, controller or token'),
  403: error('ip.forbidden: the company filters device addresses and this one is not allowed'),
  429: error('rate.limit.exceeded: too many wrong tokens, or the device is over its budget (Retry-After)')
}
const notFound = { 404: error('ddi.action.not.found: no such action of this controller, or it has ended') }
const bad = { 400: error('payload.invalid.json, payload.invalid or payload.too.large: nothing recorded') }
const ok = { description: 'Recorded' }
const document = (description: string) => ({ description, content: { 'application/hal+json': { schema: { type: 'object', additionalProperties: true } } } })

const tags = ['devices']

export const ddiSchemas = {
  poll: {
    tags,
    summary: 'DDI poll',
    description: 'hawkBit DDI: the polling sleep and, when an install waits, the link to its deploymentBase (or to its cancelAction when its operation is being cancelled). The poll is device traffic (lastCommDate).',
    params,
    response: { 200: document('{"config": {"polling": {"sleep": "HH:MM:SS"}}, "_links": {...}}'), ...refused }
  },
  deployment: {
    tags,
    summary: 'DDI deployment',
    description: 'hawkBit DDI: the install as one chunk with its artifacts (filename, sha1, md5, sha256, size, download-http link).',
    params: withId,
    response: { 200: document('{"id", "deployment": {"download", "update", "chunks"}}'), ...notFound, ...refused }
  },
  cancel: {
    tags,
    summary: 'DDI cancel action',
    description: 'hawkBit DDI: the cancel of an install whose operation is being cancelled.',
    params: withId,
    response: { 200: document('{"id", "cancelAction": {"stopId"}}'), ...notFound, ...refused }
  },
  feedback: {
    tags,
    summary: 'DDI feedback',
    description: 'hawkBit DDI: the controller reports on an action. closed ends the install task (SUCCESS, or FAILURE when the result is failure), canceled ends it CANCELLED, rejected FAILURE, other executions keep it going. On cancelAction, closed or canceled confirms the cancel: the task is CANCELLED.',
    params: withId,
    response: { 200: ok, ...bad, ...notFound, ...refused }
  },
  configData: {
    tags,
    summary: 'DDI attributes',
    description: 'hawkBit DDI: the controller\'s attributes, stored as the system\'s data ddi.<key> (a device message of protocol DDI).',
    params,
    response: { 200: ok, ...bad, ...refused }
  }
}
