// The columns of the CSV operations' files (docs/operations.md#csv-operations: the header tables). A header
// cell names a system field (NAME), a field of a part (GATEWAY[IMEI]), a metadata entry (METADATA[color]) or a
// communication parameter (M3DA[password]). Inside the brackets, case, spaces and underscores do not matter:
// GATEWAY[SERIAL NUMBER], GATEWAY[serialNumber] and GATEWAY[serial_number] are one column; a metadata name is kept
// as written.
import { FleetError } from '../../errors.js'
import type { Communication } from '../../domain/system.js'

export const GATEWAY_FIELDS = ['imei', 'serialNumber', 'macAddress', 'esn', 'meid', 'type'] as const
export type GatewayField = typeof GATEWAY_FIELDS[number]

export const SUBSCRIPTION_FIELDS = ['identifier', 'operator', 'mobileNumber', 'networkIdentifier', 'ipAddress', 'requestedIp',
  'eid', 'appletGeneration', 'formFactor', 'confType', 'technology', 'orderId', 'productRefName', 'activationImei'] as const
export type SubscriptionField = typeof SUBSCRIPTION_FIELDS[number]

/** docs/api.md#systems: the parameters of each protocol a CSV may set. */
export const COMMUNICATION_FIELDS = {
  msci: ['host', 'user', 'password'],
  m3da: ['registrationPassword', 'password'],
  rest: ['password'],
  mqtt: ['password'],
  lwm2m: ['pskIdentity', 'pskSecretHex']
} as const satisfies Record<keyof Communication, readonly string[]>
export type Protocol = keyof typeof COMMUNICATION_FIELDS

export type Column =
  | { kind: 'uid' | 'name' | 'type' | 'labels' | 'registrationCode' | 'gatewayRef' | 'subscriptionRef' }
  // The ERROR column of a failed-rows file sent again (csv/failed-rows.ts): read and ignored in every file.
  | { kind: 'error' }
  | { kind: 'gateway', field: GatewayField }
  | { kind: 'subscription', field: SubscriptionField }
  | { kind: 'metadata', name: string }
  | { kind: 'communication', protocol: Protocol, field: string }

/** Which columns a kind of file takes: the fields of parts it allows (others are unknown columns). */
export interface ColumnSet {
  plain: ReadonlyArray<'uid' | 'name' | 'type' | 'labels' | 'registrationCode' | 'gatewayRef' | 'subscriptionRef'>
  gateway: readonly GatewayField[]
  subscription: readonly SubscriptionField[]
  metadata: boolean
}

const squash = (s: string): string => s.replace(/[\s_-]/g, '').toUpperCase()

const PLAIN: Record<string, 'uid' | 'name' | 'type' | 'labels' | 'registrationCode' | 'gatewayRef' | 'subscriptionRef'> = {
  UID: 'uid', NAME: 'name', TYPE: 'type', LABELS: 'labels', REGISTRATIONCODE: 'registrationCode', GATEWAYREF: 'gatewayRef', SUBSCRIPTIONREF: 'subscriptionRef'
}

/** `PREFIX[inner]` split, or the whole cell as prefix. */
function split (cell: string): { prefix: string, inner: string | undefined } {
  const m = /^([^[\]]+)\[(.*)\]$/s.exec(cell.trim())
  return m === null ? { prefix: cell.trim(), inner: undefined } : { prefix: (m[1] ?? '').trim(), inner: (m[2] ?? '').trim() }
}

const fieldOf = <F extends string>(fields: readonly F[], inner: string): F | undefined => fields.find((f) => squash(f) === squash(inner))

/** The column a header cell names among those the set allows, or undefined. */
export function columnOf (cell: string, set: ColumnSet): Column | undefined {
  const { prefix, inner } = split(cell)
  const p = squash(prefix)
  if (p === 'ERROR' && inner === undefined) return { kind: 'error' }
  const plain = PLAIN[p]
  // GATEWAY_REF[UID] and SUBSCRIPTION_REF[UID] hold a part's uid in their cells; the brackets may be left out.
  if (plain !== undefined && (inner === undefined || (squash(inner) === 'UID' && (plain === 'gatewayRef' || plain === 'subscriptionRef')))) {
    return set.plain.includes(plain) ? { kind: plain } : undefined
  }
  if (inner === undefined || inner === '') return undefined
  if (p === 'GATEWAY') {
    const field = fieldOf(set.gateway, inner)
    return field === undefined ? undefined : { kind: 'gateway', field }
  }
  if (p === 'SUBSCRIPTION') {
    const field = fieldOf(set.subscription, inner)
    return field === undefined ? undefined : { kind: 'subscription', field }
  }
  if (p === 'METADATA') return set.metadata ? { kind: 'metadata', name: inner } : undefined
  const protocol = (Object.keys(COMMUNICATION_FIELDS) as Protocol[]).find((k) => squash(k) === p)
  if (protocol === undefined) return undefined
  const field = fieldOf(COMMUNICATION_FIELDS[protocol], inner)
  return field === undefined ? undefined : { kind: 'communication', protocol, field }
}

/** Whether a header cell names a password of a protocol (MQTT[password], M3DA[registration password]...). */
export function isSecretColumn (cell: string): boolean {
  const { prefix, inner } = split(cell)
  const protocol = (Object.keys(COMMUNICATION_FIELDS) as Protocol[]).find((k) => squash(k) === squash(prefix))
  return protocol !== undefined && inner !== undefined && ['PASSWORD', 'REGISTRATIONPASSWORD'].includes(squash(inner))
}

const keyOf = (c: Column): string => {
  switch (c.kind) {
    case 'gateway': case 'subscription': return `${c.kind}.${c.field}`
    case 'metadata': return `metadata.${c.name}`
    case 'communication': return `${c.protocol}.${c.field}`
    default: return c.kind
  }
}

/**
 * The columns of a header: every cell must name a column of the set, once.
 * @throws csv.header.unknown.column (naming the cell)
 */
export function parseHeader (header: readonly string[], set: ColumnSet): Column[] {
  const seen = new Set<string>()
  return header.map((cell) => {
    const column = columnOf(cell, set)
    if (column === undefined) throw new FleetError('csv.header.unknown.column', [cell === '' ? '(an empty header cell)' : cell])
    const key = keyOf(column)
    if (seen.has(key)) throw new FleetError('csv.header.unknown.column', [cell, 'the column is given twice'])
    seen.add(key)
    return column
  })
}

/** One row's cells by column: blank cells are '' (each kind says what a blank means). */
export interface RowValues {
  uid?: string
  name?: string
  type?: string
  labels?: string
  registrationCode?: string
  gatewayRef?: string
  subscriptionRef?: string
  gateway: Partial<Record<GatewayField, string>>
  subscription: Partial<Record<SubscriptionField, string>>
  metadata: Record<string, string>
  communication: Partial<Record<Protocol, Record<string, string>>>
}

export function rowValues (columns: readonly Column[], cells: readonly string[]): RowValues {
  const out: RowValues = { gateway: {}, subscription: {}, metadata: {}, communication: {} }
  columns.forEach((c, i) => {
    const v = (cells[i] ?? '').trim()
    switch (c.kind) {
      case 'gateway': out.gateway[c.field] = v; break
      case 'subscription': out.subscription[c.field] = v; break
      case 'metadata': out.metadata[c.name] = v; break
      case 'communication': (out.communication[c.protocol] ??= {})[c.field] = v; break
      case 'error': break
      default: out[c.kind] = v
    }
  })
  return out
}

/** docs/operations.md#csv-operations: labels separated by `|`. */
export const labelsOf = (cell: string | undefined): string[] =>
  [...new Set((cell ?? '').split('|').map((l) => l.trim()).filter((l) => l !== ''))]

/** The communication parameters given in non-blank cells (a blank cell leaves the parameter as it is). */
export function communicationOf (values: RowValues): Communication | undefined {
  const out: Record<string, Record<string, string>> = {}
  for (const [protocol, fields] of Object.entries(values.communication)) {
    const given = Object.entries(fields).filter(([, v]) => v !== '')
    if (given.length > 0) out[protocol] = Object.fromEntries(given)
  }
  return Object.keys(out).length === 0 ? undefined : out as Communication
}

/** The non-blank part fields, or undefined when every cell is blank. */
export function givenFields<F extends string> (fields: Partial<Record<F, string>>): Partial<Record<F, string>> | undefined {
  const given = Object.entries(fields).filter(([, v]) => v !== '') as Array<[F, string]>
  return given.length === 0 ? undefined : Object.fromEntries(given) as Partial<Record<F, string>>
}
