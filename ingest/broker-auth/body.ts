// The brokers' request bodies, read field by field: a missing or mistyped field is a 400 request.invalid naming it
// (docs/api.md#using-the-api), never a 500.
import { FleetError } from '../../core/errors.js'

export type Body = Record<string, unknown>

export function objectBody (body: unknown): Body {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new FleetError('request.invalid', ['body', 'a JSON object'])
  return body as Body
}

export function text (body: Body, field: string): string {
  const v = body[field]
  if (typeof v !== 'string') throw new FleetError('request.invalid', [field, 'a string'])
  return v
}

/** A string field that may be absent or null (a client without password, a broker that does not send the peer). */
export function optionalText (body: Body, field: string): string {
  const v = body[field]
  if (v === undefined || v === null) return ''
  if (typeof v !== 'string') throw new FleetError('request.invalid', [field, 'a string'])
  return v
}
