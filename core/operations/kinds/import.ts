// Import (docs/operations.md#csv-operations, deprecated in favour of Register and kept): systems from a CSV file, one
// task per row. A row makes its gateway (one of IMEI, MAC address, serial number) and subscription from its cells or
// links existing ones by uid (GATEWAY_REF, SUBSCRIPTION_REF), through the same rules as POST /api/v1/systems.
import type { SystemInput } from '../../services/systems/input.js'
import type { GatewayInput, SubscriptionInput } from '../../services/systems/compose.js'
import { insertSystem } from '../../services/systems/write.js'
import type { OperationHandler } from '../handler.js'
import { operationKind } from '../kind.js'
import { communicationOf, GATEWAY_FIELDS, givenFields, labelsOf, SUBSCRIPTION_FIELDS, type ColumnSet, type RowValues } from '../csv/columns.js'
import { companyOf, createCsvOperation, CSV_ROW_WEIGHT, CsvBody, rowOf, taskSystem, withAssignedCodes, type CsvKindSpec } from '../csv/operation.js'
import type { CsvDefaults } from '../csv/defaults.js'
import { writeFailedRows } from '../csv/failed-rows.js'
import { repeatedIdentifiers } from './register.js'

export const IMPORT_COLUMNS: ColumnSet = {
  plain: ['name', 'type', 'labels', 'gatewayRef', 'subscriptionRef'],
  gateway: GATEWAY_FIELDS,
  subscription: SUBSCRIPTION_FIELDS,
  metadata: true
}

const IMPORT: CsvKindSpec = {
  type: 'SYSTEM_IMPORT',
  columns: IMPORT_COLUMNS,
  defaults: ['notify', 'callback', 'defaultApplications', 'defaultType'],
  task: repeatedIdentifiers
}

const given = (v: string | undefined): v is string => v !== undefined && v !== ''

/** The metadata of non-blank METADATA[name] cells. */
export const metadataOf = (values: RowValues): Record<string, string> =>
  Object.fromEntries(Object.entries(values.metadata).filter(([, v]) => v !== ''))

/** The type of the row: its TYPE cell, else the defaultType (ignored when the file has a TYPE column). */
export function typeOf (values: RowValues, defaults: CsvDefaults): string | undefined {
  if (values.type !== undefined) return given(values.type) ? values.type : undefined
  return defaults.defaultType
}

/** The new system of an import row. */
function importInput (values: RowValues, defaults: CsvDefaults): SystemInput {
  const gatewayFields = givenFields(values.gateway)
  const subscriptionFields = givenFields(values.subscription)
  const gateway: GatewayInput | null = given(values.gatewayRef) ? { uid: values.gatewayRef } : gatewayFields ?? null
  const subscription: SubscriptionInput | null = given(values.subscriptionRef) ? { uid: values.subscriptionRef } : subscriptionFields ?? null
  const type = typeOf(values, defaults)
  return {
    ...(given(values.name) ? { name: values.name } : {}),
    ...(type === undefined ? {} : { type }),
    labels: labelsOf(values.labels),
    metadata: metadataOf(values),
    ...(communicationOf(values) === undefined ? {} : { communication: communicationOf(values) }),
    gateway,
    subscription,
    applications: (defaults.defaultApplications ?? []).map((uid) => ({ uid }))
  }
}

/** @throws sets G and C, gateway.assigned, subscription.assigned, system.limit.exceeded, and the create system rules */
export const importHandler: OperationHandler = {
  taskWeight: CSV_ROW_WEIGHT,
  async run ({ tx, op, task, now }) {
    const { values, defaults } = rowOf(op, task, IMPORT_COLUMNS)
    return await withAssignedCodes(async () => {
      const input = importInput(values, defaults)
      const uid = await insertSystem(tx, await companyOf(tx, op.companyUid), input, now)
      // docs/operations.md#csv-operations: the system's labels are inherited by its gateway and subscription.
      const labels = input.labels ?? []
      const made = labels.length === 0 ? undefined : await tx.systems.findByUid(op.companyUid, uid)
      if (made?.gateway != null) await tx.gateways.addLabels(made.gateway.uid, labels)
      if (made?.subscription != null) await tx.subscriptions.addLabels(made.subscription.uid, labels)
      return { state: 'SUCCESS' as const, system: await taskSystem(tx, op.companyUid, uid) }
    })
  },
  finished: async (tx, op) => { await writeFailedRows(tx, op) }
}

export const importKind = operationKind({
  type: 'SYSTEM_IMPORT',
  route: {
    path: '/operations/systems/import',
    summary: 'Import systems from a CSV file (deprecated: use register)',
    description: 'multipart/form-data: a CSV part (any name; at most 10 MB) with the columns NAME, TYPE, LABELS (separated by |), GATEWAY[IMEI|SERIAL NUMBER|MAC ADDRESS|ESN|MEID|TYPE], GATEWAY_REF[UID], SUBSCRIPTION[IDENTIFIER|OPERATOR|MOBILE NUMBER|...], SUBSCRIPTION_REF[UID], METADATA[name], MSCI[...], M3DA[...], REST[password], MQTT[password]; and an optional JSON part defaultValues (or parameters) {notify, callback, defaultApplications, defaultType}. One task per row with its line; the failed rows are the operation\'s file.',
    body: CsvBody,
    upload: 'multipart'
  },
  create: async (deps, caller, body) => await createCsvOperation(deps, caller, IMPORT, body),
  handler: importHandler
})
