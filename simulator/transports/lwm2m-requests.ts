// The Device Management and Information Reporting interfaces of a simulated LwM2M client (OMA-TS-LightweightM2M-Core
// 1.1 §6.3, §6.4): the server's CoAP requests turned into operations on the object tree. GET reads (in the Accept
// format) or discovers (Accept link format) or observes (Observe 0; 1 cancels); PUT writes, or writes attributes when
// it carries only a query; POST executes a resource, writes an instance (partial update) or creates an Object 9
// instance; DELETE removes an Object 9 instance.
import { CoapCode, OptionNumber, encodeUint, getUintOption, uriPathOf, uriQueryOf, type CoapMessage, type OutgoingResponse } from '../../protocols/coap/index.js'
import { ContentFormat, decodeContent, encodeContent, formatPath, parsePath, type LwM2mPath } from '../../protocols/lwm2m/index.js'
import type { Lwm2mObservers, Rendered } from './lwm2m-observers.js'
import type { Lwm2mTree, Outcome } from './lwm2m-tree.js'

export type Lwm2mVersion = '1.0' | '1.1'

export interface RequestsDeps {
  tree: Lwm2mTree
  observers: Lwm2mObservers
  version: Lwm2mVersion
  /** Write-Attributes (§5.1.2) by path: pmin and pmax in seconds. */
  attributes: Map<string, { pmin?: number, pmax?: number }>
}

const SINGLE_VALUE = new Set<number>([ContentFormat.TEXT, ContentFormat.OPAQUE, ContentFormat.CBOR])
const FORMATS: Record<Lwm2mVersion, ReadonlySet<number>> = {
  '1.0': new Set([ContentFormat.TLV, ContentFormat.TLV_LEGACY, ContentFormat.JSON, ContentFormat.JSON_LEGACY, ContentFormat.TEXT, ContentFormat.OPAQUE]),
  1.1: new Set([ContentFormat.TLV, ContentFormat.TLV_LEGACY, ContentFormat.SENML_JSON, ContentFormat.SENML_CBOR, ContentFormat.TEXT, ContentFormat.OPAQUE, ContentFormat.CBOR])
}
/** What a Read answers without Accept: TLV, which both versions of the protocol know. */
const DEFAULT_FORMAT = ContentFormat.TLV

const CODES: Record<Outcome, number> = { ok: CoapCode.Changed, 'not.found': CoapCode.NotFound, 'not.allowed': CoapCode.MethodNotAllowed, 'bad.request': CoapCode.BadRequest }
const answer = (code: number, payload?: Buffer | string): OutgoingResponse => payload === undefined ? { code } : { code, payload }
const contentFormat = (n: number): { number: number, value: Buffer } => ({ number: OptionNumber.ContentFormat, value: encodeUint(n) })

/** The representation of a path in a format; a 4.xx code when it cannot be given. */
export function render (d: RequestsDeps, path: LwM2mPath, format: number): Rendered {
  if (!FORMATS[d.version].has(format)) return { code: CoapCode.NotAcceptable, contentFormat: format, payload: Buffer.alloc(0) }
  const read = d.tree.read(path)
  if (read.outcome !== 'ok') return { code: CODES[read.outcome], contentFormat: format, payload: Buffer.alloc(0) }
  // An object without instances (Object 9 with nothing installed) is an empty representation, not an error.
  if (read.values.length === 0) return { code: CoapCode.Content, contentFormat: format, payload: Buffer.alloc(0) }
  if (SINGLE_VALUE.has(format) && (path.resourceId === undefined || read.values.length !== 1)) return { code: CoapCode.NotAcceptable, contentFormat: format, payload: Buffer.alloc(0) }
  const encoded = encodeContent(format, read.values, { basePath: path })
  if (!encoded.ok) return { code: CoapCode.InternalServerError, contentFormat: format, payload: Buffer.from(encoded.reason) }
  return { code: CoapCode.Content, contentFormat: format, payload: encoded.payload }
}

/** pmin and pmax of a path: its own attributes, else its parents', else the server object's defaults. */
export function periodsOf (d: RequestsDeps, path: LwM2mPath, defaults: { pmin: number, pmax: number }): { pmin: number, pmax: number } {
  const out = { ...defaults }
  const chain = [path.objectId, path.instanceId, path.resourceId].filter((x): x is number => x !== undefined)
  for (let n = 1; n <= chain.length; n++) {
    const a = d.attributes.get('/' + chain.slice(0, n).join('/'))
    if (a?.pmin !== undefined) out.pmin = a.pmin
    if (a?.pmax !== undefined) out.pmax = a.pmax
  }
  return out
}

function discover (d: RequestsDeps, path: LwM2mPath): OutgoingResponse {
  const attrs = (p: LwM2mPath): string => {
    const a = d.attributes.get(formatPath(p))
    return (a?.pmin === undefined ? '' : `;pmin=${a.pmin}`) + (a?.pmax === undefined ? '' : `;pmax=${a.pmax}`)
  }
  const links = d.tree.discover(path, attrs)
  if (links === undefined) return answer(CoapCode.NotFound)
  return { code: CoapCode.Content, options: [contentFormat(ContentFormat.LINK)], payload: links.join(',') }
}

function get (d: RequestsDeps, req: CoapMessage, peer: string, path: LwM2mPath): OutgoingResponse {
  const accept = getUintOption(req, OptionNumber.Accept)
  if (accept === ContentFormat.LINK) return discover(d, path)
  const observe = getUintOption(req, OptionNumber.Observe)
  const r = render(d, path, accept ?? DEFAULT_FORMAT)
  if (r.code !== CoapCode.Content) return answer(r.code)
  const options = [contentFormat(r.contentFormat)]
  if (observe === 0) {
    d.observers.add(peer, req.token, path, r.contentFormat, r.payload)
    options.push({ number: OptionNumber.Observe, value: encodeUint(0) })
  } else if (observe === 1) d.observers.remove(peer, req.token)
  return { code: CoapCode.Content, options, payload: r.payload }
}

/** Write-Attributes (§5.1.2): pmin and pmax kept, the other attributes (gt, lt, st, epmin…) accepted and ignored. */
function writeAttributes (d: RequestsDeps, path: LwM2mPath, query: string[]): OutgoingResponse {
  const key = formatPath(path)
  const a = { ...d.attributes.get(key) }
  for (const q of query) {
    const [name, value] = q.split('=', 2)
    if (name !== 'pmin' && name !== 'pmax') continue
    if (value === undefined) { delete a[name]; continue }
    const n = Number(value)
    if (!Number.isInteger(n) || n < 0) return answer(CoapCode.BadRequest)
    a[name] = n
  }
  d.attributes.set(key, a)
  return answer(CoapCode.Changed)
}

function write (d: RequestsDeps, req: CoapMessage, path: LwM2mPath): OutgoingResponse {
  const format = getUintOption(req, OptionNumber.ContentFormat)
  if (format === undefined || !FORMATS[d.version].has(format)) return answer(CoapCode.UnsupportedContentFormat)
  const decoded = decodeContent(format, req.payload, path)
  if (!decoded.ok) return answer(CoapCode.BadRequest, decoded.reason)
  // A Package URI written to an Object 9 instance not created yet creates it (a server may skip the Create).
  if (path.objectId === 9 && path.instanceId !== undefined && d.tree.instance(path) === undefined) d.tree.object(9)?.create?.(path.instanceId)
  return answer(CODES[d.tree.write({ objectId: path.objectId, instanceId: path.instanceId }, decoded.values)])
}

function post (d: RequestsDeps, req: CoapMessage, path: LwM2mPath): OutgoingResponse {
  if (path.resourceId !== undefined) return answer(CODES[d.tree.execute(path, req.payload.toString('utf8'))])
  if (path.instanceId !== undefined) return write(d, req, path)
  const object = d.tree.object(path.objectId)
  if (object?.create === undefined) return answer(object === undefined ? CoapCode.NotFound : CoapCode.MethodNotAllowed)
  const format = getUintOption(req, OptionNumber.ContentFormat)
  const decoded = format === undefined || req.payload.length === 0 ? undefined : decodeContent(format, req.payload, path)
  if (decoded !== undefined && !decoded.ok) return answer(CoapCode.BadRequest, decoded.reason)
  const id = object.create(decoded?.values[0]?.path.instanceId)
  if (id === undefined) return answer(CoapCode.BadRequest)
  const values = decoded?.values.filter((v) => v.path.resourceId !== undefined).map((v) => ({ ...v, path: { ...v.path, instanceId: id } })) ?? []
  if (values.length > 0) d.tree.write({ objectId: path.objectId, instanceId: id }, values)
  return { code: CoapCode.Created, options: [{ number: OptionNumber.LocationPath, value: Buffer.from(String(path.objectId)) }, { number: OptionNumber.LocationPath, value: Buffer.from(String(id)) }] }
}

/** The CoAP handler of the client's endpoint. */
export function lwm2mHandler (d: RequestsDeps): (req: CoapMessage, peer: string) => OutgoingResponse {
  return (req, peer) => {
    const parsed = parsePath(uriPathOf(req))
    if (!parsed.ok) return answer(CoapCode.NotFound)
    const path = parsed.path
    switch (req.code) {
      case CoapCode.GET: return get(d, req, peer, path)
      case CoapCode.PUT: {
        const query = uriQueryOf(req)
        if (req.payload.length === 0 && query.length > 0) return writeAttributes(d, path, query)
        return path.instanceId === undefined ? answer(CoapCode.MethodNotAllowed) : write(d, req, path)
      }
      case CoapCode.POST: return post(d, req, path)
      case CoapCode.DELETE: {
        const object = d.tree.object(path.objectId)
        if (path.instanceId === undefined || path.resourceId !== undefined || object?.delete === undefined) return answer(CoapCode.MethodNotAllowed)
        const outcome = object.delete(path.instanceId)
        return answer(outcome === 'ok' ? CoapCode.Deleted : CODES[outcome])
      }
      default: return answer(CoapCode.MethodNotAllowed)
    }
  }
}
