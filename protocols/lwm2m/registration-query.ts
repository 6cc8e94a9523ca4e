// The query of the registration interface (OMA-TS-LightweightM2M-Core 1.1 §6.2.1 Register and §6.2.2 Update;
// 1.0 §5.3.1/§5.3.2): `ep` endpoint client name, `lt` lifetime in seconds (86400 when absent), `lwm2m` version
// (1.0 when absent), `b` binding (U when absent), `Q` the 1.1 queue-mode flag, `sms` the client's MSISDN, `et`
// endpoint type, `d` domain. Binding modes: 1.0 allows U, UQ, S, SQ, US and UQS (Q = queue mode); 1.1 combines
// U (UDP), T (TCP), S (SMS) and N (non-IP), each at most once, and moves queue mode to `Q`. A 1.1 client that still
// writes Q in `b` is read as asking for queue mode. Parameters we do not know are left alone.
import type { Decoded } from './types.js'

export type Lwm2mVersion = '1.0' | '1.1'
export type Transport = 'U' | 'T' | 'S' | 'N'

export interface Binding {
  transports: Transport[]
  /** Queue mode, from `b` (1.0) or `Q` (1.1). */
  queue: boolean
}

export interface RegisterQuery {
  endpoint: string
  lifetime: number
  version: Lwm2mVersion
  binding: Binding
  smsNumber?: string
  endpointType?: string
  domain?: string
}

export interface UpdateQuery {
  lifetime?: number
  /** Only when `b` or `Q` was sent. */
  binding?: Binding
  smsNumber?: string
}

export const DEFAULT_LIFETIME = 86_400
export const MIN_LIFETIME = 1
/** An unsigned 32-bit count of seconds. */
export const MAX_LIFETIME = 4_294_967_295
export const MAX_ENDPOINT_LENGTH = 255

const BINDINGS_1_0 = new Set(['U', 'UQ', 'S', 'SQ', 'US', 'UQS'])

/** CoAP Uri-Query options (`ep=x`, one each) or a query string (`ep=x&lt=60`, percent-encoded). */
export type QueryInput = readonly string[] | string

function paramsOf (input: QueryInput): Decoded<{ params: Map<string, string | undefined> }> {
  let parts: string[]
  try {
    parts = typeof input === 'string'
      ? input.replace(/^\?/, '').split('&').filter((p) => p !== '').map((p) => decodeURIComponent(p.replace(/\+/g, ' ')))
      : [...input]
  } catch {
    return { ok: false, reason: 'lwm2m.register.query.invalid' } // a malformed percent escape
  }
  if (parts.length > 64) return { ok: false, reason: 'lwm2m.register.query.invalid' }
  const params = new Map<string, string | undefined>()
  for (const part of parts) {
    const eq = part.indexOf('=')
    const key = eq < 0 ? part : part.slice(0, eq)
    if (params.has(key)) return { ok: false, reason: 'lwm2m.register.parameter.duplicate' }
    params.set(key, eq < 0 ? undefined : part.slice(eq + 1))
  }
  return { ok: true, params }
}

function lifetimeOf (text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,10}$/.test(text)) return undefined
  const n = Number(text)
  return n >= MIN_LIFETIME && n <= MAX_LIFETIME ? n : undefined
}

function bindingOf (b: string, version: Lwm2mVersion, queueFlag: boolean): Binding | undefined {
  if (version === '1.0' && !BINDINGS_1_0.has(b)) return undefined
  const letters = [...b]
  if (letters.length === 0 || new Set(letters).size !== letters.length) return undefined
  if (!letters.every((l) => 'UTSNQ'.includes(l))) return undefined
  const transports = letters.filter((l): l is Transport => l !== 'Q')
  if (transports.length === 0) return undefined
  return { transports, queue: letters.includes('Q') || queueFlag }
}

type Common = Decoded<{ lifetime?: number, binding?: Binding, smsNumber?: string }>

function common (params: Map<string, string | undefined>, version: Lwm2mVersion): Common {
  const out: { lifetime?: number, binding?: Binding, smsNumber?: string } = {}
  if (params.has('lt')) {
    const lt = lifetimeOf(params.get('lt'))
    if (lt === undefined) return { ok: false, reason: 'lwm2m.register.lifetime.invalid' }
    out.lifetime = lt
  }
  const q = params.has('Q')
  if (q && params.get('Q') !== undefined) return { ok: false, reason: 'lwm2m.register.queue.invalid' }
  const b = params.get('b')
  if (params.has('b') || q) {
    const binding = bindingOf(b ?? 'U', version, q)
    if (binding === undefined) return { ok: false, reason: 'lwm2m.register.binding.unknown' }
    out.binding = binding
  }
  if (params.has('sms')) {
    const sms = params.get('sms')
    if (sms === undefined || !/^\+?[0-9]{1,15}$/.test(sms)) return { ok: false, reason: 'lwm2m.register.sms.invalid' }
    out.smsNumber = sms
  }
  return { ok: true, ...out }
}

/** The parameters of a Register request, with the defaults of §6.2.1 filled in. */
export function parseRegisterQuery (input: QueryInput): Decoded<{ query: RegisterQuery }> {
  const parsed = paramsOf(input)
  if (!parsed.ok) return parsed
  const { params } = parsed
  const endpoint = params.get('ep')
  if (endpoint === undefined || endpoint === '') return { ok: false, reason: 'lwm2m.register.endpoint.missing' }
  // The endpoint name becomes a system's identifier: printable text of bounded length.
  if (endpoint.length > MAX_ENDPOINT_LENGTH || [...endpoint].some((ch) => ch < ' ' || ch === '\x7f')) return { ok: false, reason: 'lwm2m.register.endpoint.invalid' }
  const v = params.get('lwm2m') ?? '1.0'
  if (v !== '1.0' && v !== '1.1') return { ok: false, reason: 'lwm2m.register.version.unsupported' }
  const c = common(params, v)
  if (!c.ok) return c
  const query: RegisterQuery = {
    endpoint, lifetime: c.lifetime ?? DEFAULT_LIFETIME, version: v, binding: c.binding ?? { transports: ['U'], queue: false }
  }
  if (c.smsNumber !== undefined) query.smsNumber = c.smsNumber
  const et = params.get('et')
  const d = params.get('d')
  if (et !== undefined) query.endpointType = et
  if (d !== undefined) query.domain = d
  return { ok: true, query }
}

/** The parameters of an Update request (all optional); `version` is the one the client registered with. */
export function parseUpdateQuery (input: QueryInput, version: Lwm2mVersion = '1.1'): Decoded<{ update: UpdateQuery }> {
  const parsed = paramsOf(input)
  if (!parsed.ok) return parsed
  const c = common(parsed.params, version)
  if (!c.ok) return c
  const update: UpdateQuery = {}
  if (c.lifetime !== undefined) update.lifetime = c.lifetime
  if (c.binding !== undefined) update.binding = c.binding
  if (c.smsNumber !== undefined) update.smsNumber = c.smsNumber
  return { ok: true, update }
}
