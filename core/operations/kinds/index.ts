// Every type of bulk operation the service runs (adding one is its file plus one line here).
import type { OperationKind } from '../kind.js'
import { labelKind } from './label.js'
import { transferKind } from './transfer.js'
import { swapSimKind } from './swap-sim.js'
import { deleteKind } from './delete.js'
import { exportKind } from './export.js'
import { retrieveDataKind } from './retrieve-data.js'
import { applySettingsKind } from './apply-settings.js'
import { rebootKind } from './reboot.js'
import { resetKind } from './reset.js'
import { wakeupKind } from './wakeup.js'
import { registerKind } from './register.js'
import { importKind } from './import.js'
import { bulkEditKind } from './bulk-edit.js'
import { usageImportKind } from './usage-import.js'
import { releaseKind } from './release.js'
import { publishKind } from './publish.js'
import { installApplicationKind } from './install-application.js'
import { uninstallApplicationKind } from './uninstall-application.js'
import { startApplicationKind } from './start-application.js'
import { stopApplicationKind } from './stop-application.js'

export const OPERATION_KINDS: readonly OperationKind[] = [
  labelKind,
  transferKind,
  swapSimKind,
  deleteKind,
  exportKind,
  retrieveDataKind,
  applySettingsKind,
  rebootKind,
  resetKind,
  wakeupKind,
  registerKind,
  importKind,
  bulkEditKind,
  usageImportKind,
  releaseKind,
  publishKind,
  installApplicationKind,
  uninstallApplicationKind,
  startApplicationKind,
  stopApplicationKind
]
