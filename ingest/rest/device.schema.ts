// The REST device API in the OpenAPI document (docs/devices.md). The bodies are decoded by the device codec,
// never by a JSON schema (device.routes.ts): their shape is added to the document only, by a route's swaggerTransform.
import type { SwaggerTransform } from '@fastify/swagger'

// The error body every API route references: registered once by api/app.ts, which mounts these routes.
const error = (description: string) => ({ $ref: 'ErrorBody#', description })

const empty = { type: 'null', description: 'Empty body: stored (sent only once the message is committed)' } as const

const retryAfter = { headers: { 'retry-after': { type: 'integer', description: 'Seconds to wait before sending again' } } }

/** docs/security.md#device-limits: over the device's budget, or the ingest buffer full; nothing is stored either way.
 */
function limited () {
  return {
    429: { ...error('rate.limit.exceeded: the device is over its budget of messages or bytes per second; nothing stored'), ...retryAfter },
    503: { ...error('service.unavailable: the ingest buffer is full or the store unavailable; nothing stored, send again'), ...retryAfter }
  }
}

const refused = {
  400: error('The payload is refused and nothing is stored: payload.malformed, payload.too.large, topic.forbidden...'),
  401: error('device.unauthorized: no HTTP Basic credentials, or wrong ones'),
  403: error('ip.forbidden: the company filters device addresses and this one is not allowed'),
  ...limited()
}

const point = { type: 'object', properties: { timestamp: { type: 'integer', description: 'epoch ms; missing, null or "" is the time of receipt' }, value: { description: 'number, string, boolean or null' } } }

/** The three payload forms of docs/devices.md. */
const dataBody = {
  description: 'Data points, in one of three forms: a list of {"<data id>": [{timestamp, value}...]}; an object of ' +
    '"<epoch ms>": {"<data id>": value} (with the header Device-REST-Version: 2); or {"<data id>": value} stamped on receipt',
  content: {
    'application/json': {
      schema: {
        anyOf: [
          { type: 'array', items: { type: 'object', additionalProperties: { type: 'array', items: point } } },
          { type: 'object', additionalProperties: true }
        ],
        examples: [
          [{ 'machine.temperature': [{ timestamp: 1767398400000, value: 21.5 }], _RSSI: [{ timestamp: 1767398400000, value: -71 }] }],
          { 1767398400000: { 'machine.temperature': 21.5 } },
          { 'machine.temperature': 21.5 }
        ]
      }
    }
  }
}

const ackBody = {
  description: 'The outcome of tasks: OK ends a task in SUCCESS, ERROR in FAILURE with the message',
  content: {
    'application/json': {
      schema: {
        type: 'array',
        examples: [[{ uid: 'c2d4e6f8a0b1c3f9c2b7a1d4e4f6a8b0', status: 'OK', message: '' }]],
        items: {
          type: 'object',
          required: ['uid', 'status'],
          properties: { uid: { type: 'string', description: 'uid of the task' }, status: { type: 'string', enum: ['OK', 'ERROR'] }, message: { type: 'string' } }
        }
      }
    }
  }
}

/** A task for the device: read data ids, write values, or run a command. */
const Task = {
  type: 'object',
  additionalProperties: true,
  properties: {
    uid: { type: 'string', description: 'uid of the task, to acknowledge' },
    timestamp: { type: 'integer', description: 'When it was issued (epoch ms)' },
    read: { type: 'array', items: { type: 'string' }, description: 'Data ids to send' },
    write: { type: 'array', items: { type: 'object', additionalProperties: true }, description: 'Settings {"<data id>": value} to apply' },
    command: { type: 'object', additionalProperties: true, properties: { id: { type: 'string', description: 'Command or action id' }, params: { description: 'Its parameters' } }, description: 'Command or action (reboot, reset...) to run' }
  }
}

export const messagesSchema = { summary: 'Send data', description: 'Stores the data points the device sends; 200 only once they are committed.', response: { 200: empty, ...refused } }
export const tasksSchema = {
  summary: 'Pending tasks of the device',
  description: 'The tasks waiting for this device, and those answered before by this route but not acknowledged yet (the device ignores a uid it already ran); each is acknowledged with POST /device/acks.',
  response: {
    200: { type: 'array', items: Task, description: 'The tasks', examples: [[{ uid: 'c2d4e6f8a0b1c3f9c2b7a1d4e4f6a8b0', timestamp: 1767398400000, read: ['machine.temperature'] }]] },
    401: refused[401],
    403: refused[403],
    429: refused[429]
  }
}
export const acksSchema = { summary: 'Acknowledge tasks', description: 'Ends the tasks named in the body.', response: { 200: empty, ...refused } }

/** Adds the request body to the document only (the routes read the raw body). */
export const documentBody = (body: typeof dataBody | typeof ackBody): SwaggerTransform =>
  ({ schema, url }) => ({ schema: { ...schema, body }, url })

export { ackBody, dataBody }
