// Uninstall an application from systems (docs/packages.md#installs): the device's success removes it from the system's
// applications.
import { softwareKind } from '../device/software-kind.js'

export const uninstallApplicationKind = softwareKind('SYSTEM_UNINSTALL_APPLICATION', 'uninstall', 'Uninstall an application from systems',
  'Each task ends with its device\'s report: SUCCESS removes the application from the system\'s applications.')
