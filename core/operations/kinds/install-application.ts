// Install an application package on systems (docs/packages.md#installs): each task carries a download link per binary,
// valid until the operation's timeout (7 days after the start by default); the device's success puts the application
// in the system's applications in place of any other revision of its type.
import { softwareKind } from '../device/software-kind.js'

export const installApplicationKind = softwareKind('SYSTEM_INSTALL_APPLICATION', 'install', 'Install an application on systems',
  'Each task ends with its device\'s report: SUCCESS puts the application in the system\'s applications in place of any other revision of its type.')
