// `<communication><protocol comm-id type>` with `<parameter name value/>`s (docs/packages.md#the-package): the
// application's communication, as PUT /applications/{uid}/communication would set it and checked by the same rules.
import { invalidModel } from './errors.js'
import { COMM_ID_TYPES, type CommunicationEntry, communicationProblem, DEVICE_PROTOCOLS, type DeviceProtocol } from './vocabulary.js'
import { attr, required, type XmlElement } from './xml.js'

const isProtocol = (t: string): t is DeviceProtocol => (DEVICE_PROTOCOLS as readonly string[]).includes(t)

/** A decimal integer is the number a JSON body would carry (MSCI `port`, `pollPeriodS`); other values stay text. */
const valueOf = (v: string): string | number => /^-?\d{1,15}$/.test(v) ? Number(v) : v

/**
 * M3DA models write `cipher` where the service reads `encryption` (docs/devices.md), and write `None` as often as
 * `none`: the agent's security settings are read as the M3DA transport compares them.
 */
function m3daParameters (p: Record<string, unknown>): Record<string, unknown> {
  const out = { ...p }
  if (out.encryption === undefined && out.cipher !== undefined) out.encryption = out.cipher
  for (const key of ['authentication', 'encryption']) if (typeof out[key] === 'string') out[key] = out[key].toLowerCase()
  return out
}

function parametersOf (protocol: XmlElement, type: DeviceProtocol): Record<string, unknown> | null {
  const params: Record<string, unknown> = {}
  for (const p of protocol.children) {
    if (p.name === 'description') continue
    if (p.name !== 'parameter') throw invalidModel(p.entry, p.line, `<protocol> holds <parameter name value> elements, not <${p.name}>`)
    params[required(p, 'name')] = valueOf(attr(p, 'value') ?? '')
  }
  if (Object.keys(params).length === 0) return null
  return type === 'M3DA' ? m3daParameters(params) : params
}

/**
 * The protocols of every `<communication>`, in order. A protocol the service does not speak (LWM2M, ...) is left
 * out, not refused: the model may describe a device that speaks it beside the ones the service talks to.
 */
export function mapCommunication (communications: readonly XmlElement[]): CommunicationEntry[] {
  const entries: CommunicationEntry[] = []
  const lines: XmlElement[] = []
  for (const c of communications) {
    for (const p of c.children) {
      if (p.name === 'description') continue
      if (p.name !== 'protocol') throw invalidModel(p.entry, p.line, `<communication> holds <protocol> elements, not <${p.name}>`)
      const type = required(p, 'type').toUpperCase()
      if (!isProtocol(type)) continue
      const commIdType = required(p, 'comm-id').toUpperCase()
      if (!(COMM_ID_TYPES as readonly string[]).includes(commIdType)) {
        throw invalidModel(p.entry, p.line, `comm-id "${commIdType}" is none of ${COMM_ID_TYPES.join(', ')}`)
      }
      const parameters = parametersOf(p, type)
      entries.push(parameters === null ? { type, commIdType } : { type, commIdType, parameters })
      lines.push(p)
    }
  }
  const problem = communicationProblem(entries)
  if (problem === undefined) return entries
  // The problem's field is a JSON path (`body/1/parameters/port`): its index is the protocol's.
  const at = lines[Number(/^body\/(\d+)/.exec(problem.field)?.[1] ?? 0)] ?? lines[0] as XmlElement
  const field = problem.field.replace(/^body\/\d+\/?/, '')
  throw invalidModel(at.entry, at.line, `<protocol type="${entries[lines.indexOf(at)]?.type ?? ''}">: ${field === '' ? '' : `${field} `}${problem.message}`)
}
