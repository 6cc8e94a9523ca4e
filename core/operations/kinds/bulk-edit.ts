// Bulk edit (docs/operations.md#csv-operations): systems changed from a CSV file, one task per row, the system named by
// its UID cell. GATEWAY[...] cells update the system's gateway, or make and assign one when it has none; a blank cell
// of such a column sets the field to null (an identifier the gateway cannot lose is refused). SUBSCRIPTION[...] cells
// do the same for the subscription. Other blank cells leave their field as it is.
import { FleetError } from '../../errors.js'
import type { Repositories } from '../../ports/repositories.js'
import type { Gateway, Subscription, System } from '../../domain/system.js'
import { OPERATORS } from '../../domain/system.js'
import type { SystemInput } from '../../services/systems/input.js'
import { checkIdentifiers, type GatewayInput, type SubscriptionInput } from '../../services/systems/compose.js'
import { updateSystem } from '../../services/systems/write.js'
import type { OperationHandler } from '../handler.js'
import { operationKind } from '../kind.js'
import { communicationOf, givenFields, labelsOf, type GatewayField, type SubscriptionField, type RowValues } from '../csv/columns.js'
import { createCsvOperation, CSV_ROW_WEIGHT, CsvBody, rowOf, taskSystem, withAssignedCodes, type CsvKindSpec } from '../csv/operation.js'
import type { CsvDefaults } from '../csv/defaults.js'
import { writeFailedRows } from '../csv/failed-rows.js'
import { IMPORT_COLUMNS, metadataOf, typeOf } from './import.js'

const EDIT_COLUMNS = { ...IMPORT_COLUMNS, plain: [...IMPORT_COLUMNS.plain, 'uid' as const] }

const EDIT: CsvKindSpec = {
  type: 'SYSTEM_EDIT',
  columns: EDIT_COLUMNS,
  required: ['uid'],
  defaults: ['notify', 'callback', 'defaultApplications', 'defaultType'],
  // The task names its system from the start: the operation's target and the task list show it.
  task: () => (values) => ({ systemUid: values.uid ?? '' })
}

const given = (v: string | undefined): v is string => v !== undefined && v !== ''
const orNull = (v: string): string | null => v === '' ? null : v

/** Set G on the assigned gateway with the row's cells over it. @throws set G */
async function editedGateway (tx: Repositories, companyUid: string, current: Gateway, cells: Partial<Record<GatewayField, string>>): Promise<void> {
  const patch = Object.fromEntries(Object.entries(cells).map(([k, v]) => [k, orNull(v)])) as Partial<Record<GatewayField, string | null>>
  const next = { ...current, ...patch }
  checkIdentifiers(next)
  if (next.imei === null && next.serialNumber === null && next.macAddress === null) {
    throw new FleetError('gateway.missing.identifiers', ['gateway', 'the gateway keeps one of imei, serialNumber, macAddress'])
  }
  const others = (await tx.gateways.findByIdentifiers(companyUid, { imei: patch.imei ?? null, serialNumber: patch.serialNumber ?? null, macAddress: patch.macAddress ?? null }))
    .filter((g) => g.uid !== current.uid)
  if (others.length > 0) throw new FleetError('gateway.not.unique.identifiers', others.map((g) => g.uid))
  if (current.transferTo !== null) throw new FleetError('gateway.being.transferred', [current.uid])
  await tx.gateways.update(current.uid, patch)
}

/**
 * The assigned subscription with the row's cells over it: identifier and operator cannot be null, and the
 * activation IMEI of a locked SIM cannot change.
 * @throws subscription.missing.identifier, subscription.missing.operator, unknown.enum.value, subscription.assigned,
 *   subscription.cannot.update.activation.imei.lock.exists
 */
async function editedSubscription (tx: Repositories, companyUid: string, current: Subscription, cells: Partial<Record<SubscriptionField, string>>): Promise<void> {
  const patch = Object.fromEntries(Object.entries(cells).map(([k, v]) => [k, orNull(v)])) as Partial<Record<SubscriptionField, string | null>>
  if (patch.identifier === null) throw new FleetError('subscription.missing.identifier', ['SUBSCRIPTION[IDENTIFIER]', 'a subscription keeps its ICCID'])
  if (patch.operator === null) throw new FleetError('subscription.missing.operator', ['SUBSCRIPTION[OPERATOR]', `one of ${OPERATORS.join(', ')}`])
  if (patch.operator !== undefined && !(OPERATORS as readonly string[]).includes(patch.operator)) {
    throw new FleetError('unknown.enum.value', ['SUBSCRIPTION[OPERATOR]', patch.operator, `one of ${OPERATORS.join(', ')}`])
  }
  const locked = current.imeiLock?.imeiLock === true || current.imeiLock?.imeiLock === 'true'
  if (patch.activationImei !== undefined && patch.activationImei !== current.activationImei && locked) {
    throw new FleetError('subscription.cannot.update.activation.imei.lock.exists', [current.uid, current.activationImei ?? ''])
  }
  if (patch.identifier !== undefined && patch.identifier !== current.identifier) {
    const holder = await tx.subscriptions.findByIdentifier(companyUid, patch.identifier)
    if (holder !== undefined) throw new FleetError('subscription.assigned', [holder.uid, 'another subscription has this identifier'])
  }
  const { identifier, operator, ...rest } = patch
  await tx.subscriptions.update(current.uid, { ...rest, ...(identifier == null ? {} : { identifier }), ...(operator == null ? {} : { operator }) })
}

/** What the row changes of the system itself (its parts aside). */
function editInput (system: System, values: RowValues, defaults: CsvDefaults): SystemInput {
  const type = typeOf(values, defaults)
  const metadata = metadataOf(values)
  const communication = communicationOf(values)
  const apps = defaults.defaultApplications ?? []
  return {
    ...(given(values.name) ? { name: values.name } : {}),
    ...(type === undefined ? {} : { type }),
    ...(given(values.labels) ? { labels: labelsOf(values.labels) } : {}),
    ...(Object.keys(metadata).length === 0 ? {} : { metadata: { ...system.metadata, ...metadata } }),
    ...(communication === undefined ? {} : { communication }),
    ...(apps.length === 0 ? {} : { applications: [...new Set([...system.applications.map((a) => a.uid), ...apps])].map((uid) => ({ uid })) })
  }
}

/** @throws system.unknown, sets G and C, gateway.assigned, subscription.assigned, subscription.cannot.update.activation.imei.lock.exists */
export const bulkEditHandler: OperationHandler = {
  taskWeight: CSV_ROW_WEIGHT,
  async run ({ tx, op, task, now }) {
    const { values, defaults } = rowOf(op, task, EDIT_COLUMNS)
    const companyUid = op.companyUid
    const uid = values.uid ?? ''
    const system = uid === '' ? undefined : await tx.systems.findByUid(companyUid, uid)
    if (system === undefined) throw new FleetError('system.unknown', [uid === '' ? '(blank UID)' : uid])
    return await withAssignedCodes(async () => {
      const input = editInput(system, values, defaults)
      const hasGatewayCells = Object.keys(values.gateway).length > 0
      const hasSubscriptionCells = Object.keys(values.subscription).length > 0
      if (given(values.gatewayRef)) input.gateway = { uid: values.gatewayRef }
      else if (hasGatewayCells && system.gateway !== null) {
        await editedGateway(tx, companyUid, system.gateway, values.gateway)
        input.gateway = { uid: system.gateway.uid } // its device logins follow its new identifiers
      } else if (hasGatewayCells) {
        const fields = givenFields(values.gateway)
        if (fields !== undefined) input.gateway = fields satisfies GatewayInput
      }
      if (given(values.subscriptionRef)) input.subscription = { uid: values.subscriptionRef }
      else if (hasSubscriptionCells && system.subscription !== null) await editedSubscription(tx, companyUid, system.subscription, values.subscription)
      else if (hasSubscriptionCells) {
        const fields = givenFields(values.subscription)
        if (fields !== undefined) input.subscription = fields satisfies SubscriptionInput
      }
      await updateSystem(tx, companyUid, uid, input, now)
      return { state: 'SUCCESS' as const, system: await taskSystem(tx, companyUid, uid) }
    })
  },
  finished: async (tx, op) => { await writeFailedRows(tx, op) }
}

export const bulkEditKind = operationKind({
  type: 'SYSTEM_EDIT',
  route: {
    path: '/operations/systems/edit',
    summary: 'Edit systems from a CSV file',
    description: 'multipart/form-data (a CSV part of any name and an optional JSON part defaultValues or parameters {notify, callback, defaultApplications, defaultType}), or the CSV itself as an application/octet-stream (or text/csv) body; at most 10 MB. Columns: UID (required), NAME, TYPE, LABELS, GATEWAY[...], GATEWAY_REF[UID], SUBSCRIPTION[...], SUBSCRIPTION_REF[UID], METADATA[name], MSCI[...], M3DA[...], REST[password], MQTT[password]; a blank GATEWAY[...] or SUBSCRIPTION[...] cell sets the field to null. One task per row with its line; the failed rows are the operation\'s file.',
    body: CsvBody,
    upload: 'multipart-or-raw'
  },
  create: async (deps, caller, body) => await createCsvOperation(deps, caller, EDIT, body),
  handler: bulkEditHandler
})
