// Stop an installed application on systems (docs/packages.md#installs); the system's applications stay as they are.
import { softwareKind } from '../device/software-kind.js'

export const stopApplicationKind = softwareKind('SYSTEM_STOP_APPLICATION', 'stop', 'Stop an application on systems',
  'Each task ends with its device\'s report.')
