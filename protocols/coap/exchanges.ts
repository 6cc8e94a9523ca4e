// What the endpoint's user gives and gets: requests to send, responses to answer with, the request handler.
import { CoapCode } from './codes.js'
import { OptionNumber, encodeUint, pathOptions, queryOptions, sortOptions } from './options.js'
import type { CoapMessage, CoapOption } from './types.js'

/** A response our handler returns; the endpoint fills type, message id and token. */
export interface OutgoingResponse { code: number, options?: CoapOption[], payload?: Buffer | string }

/** A request to send; `confirmable` defaults to true. A payload over one block goes block-wise (Block1). */
export interface OutgoingRequest { code: number, options?: CoapOption[], payload?: Buffer | string, confirmable?: boolean }

/**
 * Answers a request from a peer. `req.payload` is the whole body (Block1 already reassembled). To accept an
 * observation (a GET with Observe 0), return a 2.xx response with an Observe option (any value: the endpoint numbers
 * notifications); then call `endpoint.notify(peer, req.token, …)`. A handler that throws is answered 5.00.
 */
export type RequestHandler = (req: CoapMessage, peer: string) => Promise<OutgoingResponse> | OutgoingResponse

/** A request or response without its message-layer fields, payload as bytes. */
export interface Parts { code: number, options: CoapOption[], payload: Buffer }

export function toParts (r: OutgoingResponse | OutgoingRequest): Parts {
  const payload = r.payload === undefined ? Buffer.alloc(0) : typeof r.payload === 'string' ? Buffer.from(r.payload, 'utf8') : r.payload
  return { code: r.code, options: sortOptions([...(r.options ?? [])]), payload }
}

/** A request's parts and its type (CON unless `confirmable` is false). */
export interface SendParts extends Parts { confirmable: boolean }

export function toSendParts (r: OutgoingRequest): SendParts {
  const p = toParts(r)
  return { code: p.code, options: p.options, payload: p.payload, confirmable: r.confirmable ?? true }
}

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'FETCH' | 'PATCH' | 'IPATCH'

export interface RequestExtras {
  query?: string[]
  payload?: Buffer | string
  contentFormat?: number
  accept?: number
  options?: CoapOption[]
  confirmable?: boolean
}

/** A request for a path: `coapRequest('PUT', '/3/0/1', { payload, contentFormat: 0 })`. */
export function coapRequest (method: Method, path: string, extras: RequestExtras = {}): OutgoingRequest {
  const options: CoapOption[] = [...pathOptions(path), ...queryOptions(extras.query ?? []), ...(extras.options ?? [])]
  if (extras.contentFormat !== undefined) options.push({ number: OptionNumber.ContentFormat, value: encodeUint(extras.contentFormat) })
  if (extras.accept !== undefined) options.push({ number: OptionNumber.Accept, value: encodeUint(extras.accept) })
  return { code: CoapCode[method], options: sortOptions(options), payload: extras.payload, confirmable: extras.confirmable }
}
