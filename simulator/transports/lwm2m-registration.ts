// The Registration interface, client side (OMA-TS-LightweightM2M-Core 1.1 §6.2; 1.0 §5.3): Register
// `POST /rd?ep=<name>&lt=<s>&lwm2m=<v>&b=U` with the object links in link format, Update `POST /rd/<id>` (with `lt`,
// `b` or the links when they changed), De-register `DELETE /rd/<id>`. Queue mode is `b=UQ` in 1.0 and the `Q`
// parameter in 1.1 (§6.2.1 table: the binding then carries only transports).
import { CoapCode, OptionNumber, coapRequest, formatCode, getOptions, type CoapEndpoint } from '../../protocols/coap/index.js'
import { ContentFormat } from '../../protocols/lwm2m/index.js'
import { SERVER_PEER } from './lwm2m-link.js'
import type { Lwm2mVersion } from './lwm2m-requests.js'
import { TransportError } from './transport.js'

export interface RegistrationParams {
  endpointName: string
  lifetime: number
  version: Lwm2mVersion
  queue: boolean
  /** `</1/0>`, `</3>;ver=1.1`… (Lwm2mTree.registrationLinks). */
  links: readonly string[]
}

/** How long an exchange with the server may take before it counts as lost (ms). */
const REQUEST_TIMEOUT_MS = 30_000

/** The binding the device registers with and shows in 1/0/7. */
export const bindingOf = (version: Lwm2mVersion, queue: boolean): string => queue && version === '1.0' ? 'UQ' : 'U'

export function registerQuery (p: RegistrationParams): string[] {
  const query = [`ep=${p.endpointName}`, `lt=${p.lifetime}`, `lwm2m=${p.version}`, `b=${bindingOf(p.version, p.queue)}`]
  if (p.queue && p.version === '1.1') query.push('Q')
  return query
}

/** The registration payload: 1.1 puts the content formats it reads and writes on the root link (§6.2.1). */
export function registrationPayload (version: Lwm2mVersion, links: readonly string[]): string {
  const formats = [ContentFormat.CBOR, ContentFormat.SENML_JSON, ContentFormat.SENML_CBOR, ContentFormat.TLV].join(' ')
  return (version === '1.1' ? [`</>;rt="oma.lwm2m";ct="${formats}"`, ...links] : links).join(',')
}

const linkFormat = { contentFormat: ContentFormat.LINK }

/** Registers; answers the registration's location (`/rd/<id>`). @throws TransportError when refused */
export async function register (endpoint: CoapEndpoint, p: RegistrationParams): Promise<string> {
  const res = await endpoint.request(SERVER_PEER, coapRequest('POST', '/rd', { ...linkFormat, query: registerQuery(p), payload: registrationPayload(p.version, p.links) }), { timeoutMs: REQUEST_TIMEOUT_MS })
  if (res.code !== CoapCode.Created) throw new TransportError(`LwM2M register as ${p.endpointName}: ${formatCode(res.code)} ${res.payload.toString('utf8')}`, formatCode(res.code))
  const location = getOptions(res, OptionNumber.LocationPath).map((b) => b.toString('utf8'))
  if (location.length === 0) throw new TransportError(`LwM2M register as ${p.endpointName}: 2.01 without Location-Path`)
  return '/' + location.join('/')
}

export interface UpdateParams { lifetime?: number, binding?: string, links?: readonly string[], version: Lwm2mVersion }

/** Updates the registration; answers the CoAP code (4.04: the server forgot it, register again). */
export async function updateRegistration (endpoint: CoapEndpoint, location: string, u: UpdateParams): Promise<number> {
  const query = [...(u.lifetime === undefined ? [] : [`lt=${u.lifetime}`]), ...(u.binding === undefined ? [] : [`b=${u.binding}`])]
  const body = u.links === undefined ? {} : { ...linkFormat, payload: registrationPayload(u.version, u.links) }
  const res = await endpoint.request(SERVER_PEER, coapRequest('POST', location, { query, ...body }), { timeoutMs: REQUEST_TIMEOUT_MS })
  return res.code
}

/** De-registers; a lost answer is not an error (the registration expires with its lifetime). */
export async function deregister (endpoint: CoapEndpoint, location: string): Promise<void> {
  await endpoint.request(SERVER_PEER, coapRequest('DELETE', location), { timeoutMs: 5000 }).catch(() => undefined)
}
