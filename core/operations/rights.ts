// The right that creating each type of operation needs (docs/operations.md#bulk-operations, the Permission column;
// §Export data history). Cancelling an operation needs the same right: stopping a bulk change is as much a change as
// starting it (a view-only user could cancel anything).
import type { OperationType } from '../domain/operation.js'

export const OPERATION_RIGHTS: Readonly<Record<OperationType, string>> = {
  SYSTEM_LABEL: 'entities.systems.edit',
  SYSTEM_TRANSFER: 'entities.systems.transfers.create',
  SYSTEM_SWAP_SIM: 'entities.systems.network.swapsim',
  SYSTEM_REGISTER: 'entities.systems.create',
  SYSTEM_IMPORT: 'entities.systems.create',
  SYSTEM_EDIT: 'entities.systems.edit',
  SYSTEM_DELETE: 'entities.systems.delete',
  SYSTEM_RETRIEVE_DATA: 'entities.systems.retrieve.data',
  SYSTEM_APPLY_SETTINGS: 'entities.systems.settings.apply',
  SYSTEM_REBOOT: 'device.management.action',
  SYSTEM_RESET: 'device.management.action',
  SYSTEM_WAKEUP: 'device.management.action',
  // docs/packages.md#installs: software on a device is device management, as its reboot is.
  SYSTEM_INSTALL_APPLICATION: 'device.management.action',
  SYSTEM_UNINSTALL_APPLICATION: 'device.management.action',
  SYSTEM_START_APPLICATION: 'device.management.action',
  SYSTEM_STOP_APPLICATION: 'device.management.action',
  SYSTEM_EXPORT_DATA_HISTORY: 'entities.systems.export',
  // Not in docs/api.md (docs/usage.md): importing usage records changes systems' records.
  SYSTEM_IMPORT_USAGES: 'entities.systems.edit',
  // docs/packages.md: releasing and publishing add to the company's applications, as creating one does.
  APPLICATION_RELEASE: 'entities.applications.create',
  APPLICATION_PUBLISH: 'entities.applications.create'
}
