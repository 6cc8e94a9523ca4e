// Register (docs/operations.md#csv-operations): systems from a CSV file, one task per row. A row names a gateway by
// serial number, with its registration code when its product needs one (checked against the company's gateway
// inventory: migration 0017) or with its IMEI otherwise, and/or a SIM by ICCID. A SIM already in the company completes
// its system with the gateway instead of making a new one; a third party SIM (not in the company) makes a new system
// and needs its operator.
import { FleetError } from '../../errors.js'
import type { Repositories } from '../../ports/repositories.js'
import type { SystemInput } from '../../services/systems/input.js'
import type { GatewayInput } from '../../services/systems/compose.js'
import { insertSystem, updateSystem } from '../../services/systems/write.js'
import type { OperationHandler } from '../handler.js'
import { operationKind } from '../kind.js'
import { communicationOf, labelsOf, type ColumnSet, type RowValues } from '../csv/columns.js'
import { companyOf, createCsvOperation, CSV_ROW_WEIGHT, rowOf, taskSystem, withAssignedCodes, type CsvKindSpec, type RowTask, CsvBody } from '../csv/operation.js'
import { writeFailedRows } from '../csv/failed-rows.js'
import type { CsvDefaults } from '../csv/defaults.js'

const REGISTER_COLUMNS: ColumnSet = {
  plain: ['name', 'type', 'labels', 'registrationCode'],
  gateway: ['imei', 'serialNumber'],
  subscription: ['identifier', 'operator'],
  metadata: false
}

/** Rows repeating an earlier row's serial number, IMEI or ICCID fail: one file registers a part once. */
export function repeatedIdentifiers (): (values: RowValues) => RowTask {
  const seen = { gateway: new Map<string, number>(), subscription: new Map<string, number>() }
  let row = 0
  return (values) => {
    row++
    const gatewayIds = [values.gateway.serialNumber, values.gateway.imei, values.gateway.macAddress].filter((v): v is string => v !== undefined && v !== '')
    const iccid = values.subscription.identifier ?? ''
    const gatewayDup = gatewayIds.find((id) => seen.gateway.has(id))
    const subscriptionDup = iccid !== '' && seen.subscription.has(iccid)
    for (const id of gatewayIds) if (!seen.gateway.has(id)) seen.gateway.set(id, row)
    if (iccid !== '' && !subscriptionDup) seen.subscription.set(iccid, row)
    if (gatewayDup !== undefined) return { refused: { code: 'gateway.not.unique.identifiers', params: [gatewayDup, 'an earlier row of the file has it'] } }
    if (subscriptionDup) return { refused: { code: 'subscription.not.unique.identifiers', params: [iccid, 'an earlier row of the file has it'] } }
    return {}
  }
}

const REGISTER: CsvKindSpec = {
  type: 'SYSTEM_REGISTER',
  columns: REGISTER_COLUMNS,
  defaults: ['defaultApplications', 'offerId', 'notify', 'callback'],
  task: repeatedIdentifiers
}

const given = (v: string | undefined): v is string => v !== undefined && v !== ''

/**
 * The row's gateway: its serial number with the registration code its product needs (inventory), or with its IMEI.
 * @throws gateway.missing.identifiers, system.invalid.registration.code
 */
async function registeredGateway (tx: Repositories, companyUid: string, values: RowValues): Promise<GatewayInput | undefined> {
  const { serialNumber, imei } = values.gateway
  const code = values.registrationCode ?? ''
  if (!given(serialNumber) && !given(imei)) {
    if (code !== '') throw new FleetError('gateway.missing.identifiers', ['GATEWAY[SERIAL NUMBER]', 'a registration code goes with a serial number'])
    return undefined
  }
  if (!given(serialNumber)) throw new FleetError('gateway.missing.identifiers', ['GATEWAY[SERIAL NUMBER]', 'required when registering a gateway'])
  const shipped = await tx.catalogue.inventoryGateway(companyUid, serialNumber)
  if (shipped?.needsRegistrationCode === true || code !== '') {
    if (shipped === undefined || shipped.registrationCode === null || shipped.registrationCode !== code) {
      throw new FleetError('system.invalid.registration.code', [serialNumber, code === '' ? 'the product needs its registration code' : 'not the code of this serial number'])
    }
    return { serialNumber, imei: given(imei) ? imei : shipped.imei, type: shipped.type }
  }
  if (!given(imei)) throw new FleetError('gateway.missing.identifiers', ['GATEWAY[IMEI]', 'a gateway without registration code is registered with its serial number and IMEI'])
  return { serialNumber, imei, ...(shipped === undefined ? {} : { type: shipped.type }) }
}

/** The fields of the row that describe the system (blank cells give nothing). */
function systemFields (values: RowValues, defaults: CsvDefaults): SystemInput {
  return {
    ...(given(values.name) ? { name: values.name } : {}),
    ...(given(values.type) ? { type: values.type } : {}),
    labels: labelsOf(values.labels),
    ...(communicationOf(values) === undefined ? {} : { communication: communicationOf(values) }),
    applications: (defaults.defaultApplications ?? []).map((uid) => ({ uid }))
  }
}

/**
 * One row: completes the system of a SIM already in the company, or makes a system.
 * @throws sets G and C, gateway.assigned, subscription.assigned, system.invalid.registration.code,
 *   subscription.missing.operator, unknown.enum.value, system.limit.exceeded, system.missing.fields
 */
export const registerHandler: OperationHandler = {
  taskWeight: CSV_ROW_WEIGHT,
  async run ({ tx, op, task, now }) {
    const { values, defaults } = rowOf(op, task, REGISTER_COLUMNS)
    const companyUid = op.companyUid
    return await withAssignedCodes(async () => {
      const gateway = await registeredGateway(tx, companyUid, values)
      const iccid = values.subscription.identifier ?? ''
      if (gateway === undefined && iccid === '') throw new FleetError('gateway.missing.identifiers', ['GATEWAY[SERIAL NUMBER]', 'a row registers a gateway, a SIM (SUBSCRIPTION[IDENTIFIER]) or both'])
      const fields = systemFields(values, defaults)
      const sim = iccid === '' ? undefined : await tx.subscriptions.findByIdentifier(companyUid, iccid)
      const owner = sim === undefined ? undefined : await tx.systems.bySubscription(sim.uid)
      let uid: string
      if (owner !== undefined) {
        // docs/operations.md#csv-operations: the SIM's system is completed with the gateway; a system that has one is
        // taken.
        const current = await tx.systems.findByUid(companyUid, owner)
        if (gateway === undefined || (current?.gateway != null)) throw new FleetError('subscription.assigned', [sim?.uid ?? iccid, owner])
        const labels = [...new Set([...(current?.labels ?? []), ...(fields.labels ?? [])])]
        const apps = (defaults.defaultApplications ?? []).length === 0 ? {} : { applications: [...new Set([...(current?.applications ?? []).map((a) => a.uid), ...(defaults.defaultApplications ?? [])])].map((u) => ({ uid: u })) }
        await updateSystem(tx, companyUid, owner, { ...fields, ...apps, labels, gateway }, now)
        uid = owner
      } else {
        const subscription = iccid === '' ? null : sim !== undefined ? { uid: sim.uid } : { identifier: iccid, operator: values.subscription.operator ?? '' }
        uid = await insertSystem(tx, await companyOf(tx, companyUid), { ...fields, gateway: gateway ?? null, subscription }, now)
      }
      if (defaults.offerId !== undefined) await tx.systems.update(uid, { offerUid: defaults.offerId })
      return { state: 'SUCCESS' as const, system: await taskSystem(tx, companyUid, uid) }
    })
  },
  finished: async (tx, op) => { await writeFailedRows(tx, op) }
}

export const registerKind = operationKind({
  type: 'SYSTEM_REGISTER',
  route: {
    path: '/operations/systems/register',
    summary: 'Register systems from a CSV file',
    description: 'multipart/form-data: a CSV part (any name; at most 10 MB; UTF-8 with or without BOM, `,` or `;`) with the columns NAME, TYPE, LABELS, GATEWAY[IMEI], GATEWAY[SERIAL NUMBER], SUBSCRIPTION[IDENTIFIER], SUBSCRIPTION[OPERATOR], REGISTRATION CODE, MSCI[host|user|password], M3DA[registrationPassword|password], REST[password], MQTT[password]; and an optional JSON part defaultValues (or parameters) {defaultApplications, offerId, notify, callback}. One task per row with its line; the failed rows are the operation\'s file.',
    body: CsvBody,
    upload: 'multipart'
  },
  create: async (deps, caller, body) => await createCsvOperation(deps, caller, REGISTER, body),
  handler: registerHandler
})
