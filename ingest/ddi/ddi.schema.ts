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
const document = (description: string, schema: object) => ({ description, content: { 'application/hal+json': { schema } } })
const str = (description: string) => ({ type: 'string', description })
const link = { type: 'object', properties: { href: str('An absolute URL') } }

const pollDoc = {
  type: 'object',
  properties: {
    config: { type: 'object', properties: { polling: { type: 'object', properties: { sleep: str('How long to wait before the next poll, HH:MM:SS') } } } },
    _links: { type: 'object', description: 'Absent when nothing waits', properties: { deploymentBase: link, cancelAction: link } }
  }
}
const artifact = {
  type: 'object',
  properties: {
    filename: str('The binary\'s file name in its package'),
    hashes: { type: 'object', properties: { sha1: str('Lower-case hex'), md5: str('Lower-case hex'), sha256: str('Lower-case hex') } },
    size: { type: 'integer', description: 'Bytes' },
    _links: { type: 'object', properties: { 'download-http': link } }
  }
}
const deploymentDoc = {
  type: 'object',
  properties: {
    id: str('The action id (an integer, as a string)'),
    deployment: {
      type: 'object',
      properties: {
        download: str('Always forced'),
        update: str('Always forced'),
        chunks: { type: 'array', items: { type: 'object', properties: { part: str('Always os'), version: str('The application\'s revision'), name: str('The application\'s name'), artifacts: { type: 'array', items: artifact } } } }
      }
    }
  }
}
const cancelDoc = {
  type: 'object',
  properties: { id: str('The action id'), cancelAction: { type: 'object', properties: { stopId: str('The id of the action to stop') } } }
}

const tags = ['devices']

export const ddiSchemas = {
  poll: {
    tags,
    summary: 'DDI poll',
    description: 'hawkBit DDI: the polling sleep and, when an install waits, the link to its deploymentBase (or to its cancelAction when its operation is being cancelled). The poll is device traffic (lastCommDate).',
    params,
    response: { 200: document('The polling sleep and what waits', pollDoc), ...refused }
  },
  deployment: {
    tags,
    summary: 'DDI deployment',
    description: 'hawkBit DDI: the install as one chunk with its artifacts (filename, sha1, md5, sha256, size, download-http link).',
    params: withId,
    response: { 200: document('The install to carry out', deploymentDoc), ...notFound, ...refused }
  },
  cancel: {
    tags,
    summary: 'DDI cancel action',
    description: 'hawkBit DDI: the cancel of an install whose operation is being cancelled.',
    params: withId,
    response: { 200: document('The action to stop', cancelDoc), ...notFound, ...refused }
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
