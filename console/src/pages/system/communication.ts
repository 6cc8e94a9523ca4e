// How the system's device communicates (docs/api.md#applications-and-templates, docs/protocols/lwm2m.md): the
// protocols its applications speak, the identifier each logs in with (an LwM2M device's endpoint name), and for
// LwM2M the DTLS PSK identity and whether a key is set. A key or password is never shown, even to callers the API
// gives it to (those with entities.systems.edit): a page left open on a screen must not show a device's secret.
import { h, replace } from '../../lib/dom.js'
import { formatValue as str } from '../../lib/format.js'
import type { PageContext } from '../../page.js'
import { card, definitions, type SystemView } from './details.js'

/** One entry of an application's `communication`: a protocol and the identifier its devices log in with. */
export interface CommEntry { type: string, commIdType: string, parameters?: Record<string, unknown> | null }

type Field = [label: string, part: 'gateway' | 'subscription', key: string]

/** Where each `commIdType` is read on the system. */
const IDENTIFIERS: Record<string, Field> = {
  SERIAL: ['serial number', 'gateway', 'serialNumber'],
  IMEI: ['IMEI', 'gateway', 'imei'],
  MAC: ['MAC address', 'gateway', 'macAddress'],
  ICCID: ['ICCID', 'subscription', 'identifier'],
  ESN: ['ESN', 'subscription', 'identifier'],
  MSISDN: ['mobile number', 'subscription', 'mobileNumber']
}

/** The identifier a `commIdType` names on the system; '' when it has none. */
function identifier (s: SystemView, commIdType: string): string {
  const field = IDENTIFIERS[commIdType]
  return field === undefined ? '' : str(s[field[1]]?.[field[2]])
}

/** The same with what it is: "SN-1 (serial number)". */
export function identifierOf (s: SystemView, commIdType: string): string {
  const value = identifier(s, commIdType)
  return value === '' ? '' : `${value} (${IDENTIFIERS[commIdType]?.[0] ?? commIdType})`
}

/** The applications' entries, one per protocol (the first application that speaks it), in their order. */
function protocolsOf (entries: readonly CommEntry[]): CommEntry[] {
  const seen = new Map<string, CommEntry>()
  for (const e of entries) if (!seen.has(e.type)) seen.set(e.type, e)
  return [...seen.values()]
}

/** LwM2M over DTLS: the PSK identity (the endpoint name unless set), and the key's state, never its value. */
function lwm2mPairs (s: SystemView, entry: CommEntry | undefined): Array<[string, string]> {
  const psk = s.communication?.lwm2m ?? null
  const endpoint = entry === undefined ? '' : identifier(s, entry.commIdType)
  const identity = str(psk?.pskIdentity)
  const pairs: Array<[string, string]> = [
    // A viewer is given null for the key (docs/api.md#systems): that it is set shows in the object being there.
    ['DTLS pre-shared key', psk === null ? 'None' : typeof psk.pskSecretHex === 'string' ? 'Set (not shown)' : 'Not shown'],
    ['DTLS PSK identity', identity !== '' ? identity : endpoint !== '' && psk !== null ? `${endpoint} (the endpoint name)` : '']
  ]
  if (entry !== undefined) {
    const nosec = entry.parameters?.security === 'none'
    pairs.unshift(['LwM2M security', nosec ? 'DTLS with a pre-shared key, or plain CoAP (NoSec)' : 'DTLS with a pre-shared key'])
  }
  return pairs
}

/**
 * What the Communication card lists. `entries` are the system's applications' communication entries; null when
 * they could not be read (the caller may lack entities.applications.view): then only what the system tells.
 */
export function communicationPairs (s: SystemView, entries: readonly CommEntry[] | null): Array<[string, string]> {
  const protocols = protocolsOf(entries ?? [])
  const pairs: Array<[string, string]> = []
  if (entries !== null) pairs.push(['Protocols', protocols.map((p) => p.type).join(', ')])
  for (const p of protocols) pairs.push([p.type === 'LWM2M' ? 'LwM2M endpoint name' : `${p.type} identifier`, identifierOf(s, p.commIdType)])
  const lwm2m = protocols.find((p) => p.type === 'LWM2M')
  if (lwm2m !== undefined || (s.communication?.lwm2m ?? null) !== null) pairs.push(...lwm2mPairs(s, lwm2m))
  return pairs
}

interface ApplicationAnswer { communication?: CommEntry[] | null }

/** The card, kept for the page's life: the applications are read once per set of applications, not per refresh. */
export function communicationCard (ctx: Pick<PageContext, 'api'>, alive: () => boolean) {
  const body = h('div', {}, h('p', { class: 'table-state' }, 'Loading…'))
  const el = card('Communication', body)
  const read = new Map<string, Promise<CommEntry[] | null>>()
  let shown: SystemView | null = null
  const keyOf = (s: SystemView): string => (s.applications ?? []).map((a) => a.uid).join(',')

  async function entriesOf (s: SystemView): Promise<CommEntry[] | null> {
    try {
      const apps = await Promise.all((s.applications ?? []).map(async (a) => await ctx.api.get<ApplicationAnswer>(`/api/v1/applications/${encodeURIComponent(a.uid)}`)))
      return apps.flatMap((a) => a.communication ?? [])
    } catch {
      return null // not the caller's to read: the card shows what the system alone tells
    }
  }

  return {
    /** Shows `s` (again), reading its applications the first time they are these; answers the card. */
    show (s: SystemView): HTMLElement {
      shown = s
      const key = keyOf(s)
      let entries = read.get(key)
      if (entries === undefined) { entries = entriesOf(s); read.set(key, entries) }
      entries.then((e) => {
        // A later show (other applications) wins over an earlier read still on its way.
        if (alive() && shown !== null && keyOf(shown) === key) replace(body, definitions(communicationPairs(shown, e)))
      }, () => {})
      return el
    }
  }
}
