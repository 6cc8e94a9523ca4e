// The System as answered to a caller (docs/api.md#systems). Its `communication` holds the devices' credentials
// (docs/api.md#systems: msci, m3da and rest/mqtt passwords): they are shown only to callers who may change
// them, holding entities.systems.edit in the context company; for everybody else each password field is null, so a
// viewer learns which credentials are set up by the shape alone, never their values.
import type { CompanyAccess } from '../access.js'
import { systemView, type System } from '../../domain/system.js'

export const SECRETS_RIGHT = 'entities.systems.edit'

// Every secret of docs/api.md#systems (msci.password, m3da.registrationPassword, m3da.password,
// rest.password, mqtt.password) and LwM2M's pre-shared key (lwm2m.pskSecretHex, docs/protocols/lwm2m.md); host, user
// and the PSK identity are not secrets.
const SECRET_FIELDS: ReadonlySet<string> = new Set(['password', 'registrationPassword', 'pskSecretHex'])

type CommunicationView = Record<string, Record<string, unknown> | null>

/** The communication view with each password field set to null. */
export function maskedCommunication (c: CommunicationView): CommunicationView {
  return Object.fromEntries(Object.entries(c).map(([protocol, fields]) => [
    protocol,
    fields === null ? null : Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, SECRET_FIELDS.has(k) ? null : v]))
  ]))
}

/** How systems are shown to this caller: with their device credentials only when it holds SECRETS_RIGHT. */
export function systemViewFor (access: CompanyAccess): (s: System, now: number) => Record<string, unknown> {
  if (access.membership.rights.has(SECRETS_RIGHT)) return systemView
  return (s, now) => {
    const view = systemView(s, now)
    return { ...view, communication: maskedCommunication(view.communication as CommunicationView) }
  }
}
