// The service's requests to a registered device (docs/protocols/lwm2m.md#device-tasks): Read, Write, Execute and
// Create over its registration's socket or session, under its alternate root path. What the device tasks (tasks.ts)
// and the installs (installs.ts) share: a reply is the device's answer, or the code of why none came.
import { CoapError, OptionNumber, coapRequest, formatCode, getOptions, getUintOption, isSuccessCode, type CoapMessage, type OutgoingRequest } from '../../protocols/coap/index.js'
import { ContentFormat, decodeContent, encodeContent, formatPath, pickWriteFormat, type LwM2mEntry, type LwM2mPath, type LwM2mValue } from '../../protocols/lwm2m/index.js'
import type { LiveRegistration } from './live.js'
import { devicePath } from './reporting.js'

/**
 * A 2.xx answer; or a refusal: another code (`4.04`), or no answer at all (`silent`: coap.timeout, coap.peer.gone...,
 * a device asleep or gone, which may answer at its next Update).
 */
export type Reply = { ok: true, msg: CoapMessage } | { ok: false, code: string, silent: boolean }

export type Device = Pick<LiveRegistration, 'link' | 'links' | 'version' | 'ended'>

/** How a device task ends: the device's success, or its failure with the message the task's error carries. */
export type Outcome = { status: 'OK' } | { status: 'ERROR', message: string }
export const OK: Outcome = { status: 'OK' }
export const failed = (message: string): Outcome => ({ status: 'ERROR', message })

/**
 * Sends one request; never throws for the device's silence (a CoapError), only for a fault of ours. A registration
 * that ended is not asked: its socket or session may be gone, and the request would wait its whole timeout.
 */
export async function ask (r: Device, req: OutgoingRequest, timeoutMs: number): Promise<Reply> {
  if (r.ended === true) return { ok: false, code: 'lwm2m.registration.ended', silent: true }
  try {
    const msg = await r.link.endpoint.request(r.link.peer, req, { timeoutMs })
    return isSuccessCode(msg.code) ? { ok: true, msg } : { ok: false, code: formatCode(msg.code), silent: false }
  } catch (err) {
    if (err instanceof CoapError) return { ok: false, code: err.code, silent: true }
    throw err
  }
}

/** The format the device reads and writes in: TLV for 1.0, what a 1.1 device advertised (`ct`, §6.2.1). */
export const formatOf = (r: Pick<Device, 'version' | 'links'>): number => pickWriteFormat({ version: r.version, contentFormats: r.links.contentFormats })

/** Write (PUT) of one resource; `encoding` when the value has no representation in the device's format. */
export async function writeResource (r: Device, path: LwM2mPath, value: LwM2mValue, timeoutMs: number): Promise<Reply | { ok: false, encoding: string }> {
  const format = formatOf(r)
  const encoded = encodeContent(format, [{ path, value }])
  if (!encoded.ok) return { ok: false, encoding: encoded.reason }
  return await ask(r, coapRequest('PUT', devicePath(r, path), { payload: encoded.payload, contentFormat: format }), timeoutMs)
}

export const execute = async (r: Device, path: LwM2mPath, timeoutMs: number): Promise<Reply> =>
  await ask(r, coapRequest('POST', devicePath(r, path)), timeoutMs)

/** A Read's values, or why there are none: a refusal, or a payload that does not decode (`lwm2m.*`, not silent). */
export type ReadReply = { ok: true, values: LwM2mEntry[] } | { ok: false, code: string, silent: boolean }

/** Read (GET) of an object, instance or resource in the device's format; an empty payload holds no values. */
export async function read (r: Device, path: LwM2mPath, timeoutMs: number): Promise<ReadReply> {
  const reply = await ask(r, coapRequest('GET', devicePath(r, path), { accept: formatOf(r) }), timeoutMs)
  if (!reply.ok) return reply
  if (reply.msg.payload.length === 0) return { ok: true, values: [] }
  const format = getUintOption(reply.msg, OptionNumber.ContentFormat) ?? ContentFormat.TEXT
  const decoded = decodeContent(format, reply.msg.payload, path)
  return decoded.ok ? { ok: true, values: decoded.values } : { ok: false, code: decoded.reason, silent: false }
}

/**
 * Create (POST to the object, §6.3.7) of an instance with no values: its id is the Location-Path the device
 * answers (`/9/2` → 2); `lwm2m.create.no.location` when it names none.
 */
export async function create (r: Device, objectId: number, timeoutMs: number): Promise<{ ok: true, instanceId: number } | { ok: false, code: string, silent: boolean }> {
  const path = { objectId }
  const reply = await ask(r, coapRequest('POST', devicePath(r, path), { contentFormat: ContentFormat.TLV, payload: Buffer.alloc(0) }), timeoutMs)
  if (!reply.ok) return reply
  const last = getOptions(reply.msg, OptionNumber.LocationPath).map((v) => v.toString('utf8')).pop()
  const id = last === undefined ? Number.NaN : Number(last)
  return Number.isInteger(id) && id >= 0 && id <= 65535 ? { ok: true, instanceId: id } : { ok: false, code: 'lwm2m.create.no.location', silent: false }
}

/** `4.05 to Execute /5/0/2`: a refusal named with the request it answered. */
export const refusal = (code: string, verb: string, path: LwM2mPath): string => `${code} to ${verb} ${formatPath(path)}`
