// The application model (docs/api.md#applications-and-templates): what an application declares its device understands,
// in the AirVantage shape real clients send. Its communication lists the protocols it speaks; its data is a tree of
// nodes, variables, settings, commands and actions. The device operations read it to know what a system can be asked.
import type { DeviceProtocol } from './device-message.js'

export const ELEMENT_TYPES = ['node', 'variable', 'setting', 'command', 'action'] as const
export type ElementType = typeof ELEMENT_TYPES[number]
export const VALUE_TYPES = ['int', 'double', 'boolean', 'string', 'date', 'binary'] as const
export type ValueType = typeof VALUE_TYPES[number]
export const ACTION_TYPES = ['REBOOT', 'RESET', 'CONNECT'] as const
export type ActionType = typeof ACTION_TYPES[number]

/** One element of `PUT /applications/{uid}/data`; a data id is the dot-joined ids from the top node down. */
export interface DataNode {
  id: string
  label?: string | null
  elementType: ElementType
  /** The protocol that carries this element (else the application's communication decides). */
  encoding?: DeviceProtocol | null
  type?: ValueType | null
  data?: DataNode[] | null
  parameters?: Array<{ id: string, type: ValueType }> | null
  actionType?: ActionType | null
}

/** Identifiers a device may log in with (docs/api.md#applications-and-templates `commIdType`): the gateway's and the
 * SIM's. */
export const COMM_ID_TYPES = ['SERIAL', 'IMEI', 'MAC', 'ESN', 'MEID', 'ICCID', 'MSISDN'] as const

/** One entry of `PUT /applications/{uid}/communication`: a protocol the application speaks. */
export interface CommunicationEntry {
  type: DeviceProtocol
  /** Which system identifier the device logs in with (SERIAL, IMEI...). */
  commIdType: string
  parameters?: Record<string, unknown> | null
}

/**
 * The communication parameters of the first application that speaks the protocol with any (docs/devices.md: M3DA
 * `authentication` and `encryption`, MSCI `access` and `pollPeriodS`...); empty when none gives any.
 */
export function communicationParameters (applications: ReadonlyArray<{ communication: readonly CommunicationEntry[] }>, protocol: DeviceProtocol): Record<string, unknown> {
  for (const a of applications) {
    const entry = a.communication.find((c) => c.type === protocol)
    if (entry?.parameters != null) return entry.parameters
  }
  return {}
}

/** A leaf of the data tree with its full id (nodes only group). */
export interface DataDefinition {
  id: string
  elementType: Exclude<ElementType, 'node'>
  type: ValueType | null
  encoding: DeviceProtocol | null
  actionType: ActionType | null
  parameters: Array<{ id: string, type: ValueType }>
}

/** Every leaf of the tree, in tree order, with its dot-joined id. */
export function flattenData (tree: readonly DataNode[], prefix = ''): DataDefinition[] {
  const out: DataDefinition[] = []
  for (const n of tree) {
    const id = prefix === '' ? n.id : `${prefix}.${n.id}`
    if (n.elementType === 'node') {
      out.push(...flattenData(n.data ?? [], id))
      continue
    }
    out.push({ id, elementType: n.elementType, type: n.type ?? null, encoding: n.encoding ?? null, actionType: n.actionType ?? null, parameters: n.parameters ?? [] })
  }
  return out
}
