// Object 9, LwM2M Software Management (OMA object definition 1.0). Update State and Update Result carry the
// definition's words (4–49 and 60–200 are reserved for expansion; 55 is not assigned).
import { r, type ObjectModel } from './model.js'

/** 9/x/7 Update State. */
export const SOFTWARE_UPDATE_STATES: Readonly<Record<number, string>> = {
  0: 'INITIAL',
  1: 'DOWNLOAD STARTED',
  2: 'DOWNLOADED',
  3: 'DELIVERED',
  4: 'INSTALLED'
}

/** 9/x/9 Update Result. */
export const SOFTWARE_UPDATE_RESULTS: Readonly<Record<number, string>> = {
  0: 'Initial value',
  1: 'Downloading',
  2: 'Software successfully installed',
  3: 'Successfully Downloaded and package integrity verified',
  50: 'Not enough storage for the new software package',
  51: 'Out of memory during downloading process',
  52: 'Connection lost during downloading process',
  53: 'Package integrity check failure',
  54: 'Unsupported package type',
  56: 'Invalid URI',
  57: 'Device defined update error',
  58: 'Software installation failure',
  59: 'Uninstallation Failure during forUpdate(arg=0)'
}

export const SOFTWARE_MANAGEMENT: ObjectModel = {
  id: 9,
  name: 'LwM2M Software Management',
  version: '1.0',
  multiple: true,
  mandatory: false,
  resources: [
    r(0, 'PkgName', 'String', 'R', 'single', 'mandatory'),
    r(1, 'PkgVersion', 'String', 'R', 'single', 'mandatory'),
    r(2, 'Package', 'Opaque', 'W', 'single', 'optional'),
    r(3, 'Package URI', 'String', 'W', 'single', 'optional'),
    r(4, 'Install', 'none', 'E', 'single', 'mandatory'),
    r(5, 'Checkpoint', 'Objlnk', 'R', 'single', 'optional'),
    r(6, 'Uninstall', 'none', 'E', 'single', 'mandatory'),
    r(7, 'Update State', 'Integer', 'R', 'single', 'mandatory', { values: SOFTWARE_UPDATE_STATES }),
    r(8, 'Update Supported Objects', 'Boolean', 'RW', 'single', 'optional'),
    r(9, 'Update Result', 'Integer', 'R', 'single', 'mandatory', { values: SOFTWARE_UPDATE_RESULTS }),
    r(10, 'Activate', 'none', 'E', 'single', 'mandatory'),
    r(11, 'Deactivate', 'none', 'E', 'single', 'mandatory'),
    r(12, 'Activation State', 'Boolean', 'R', 'single', 'mandatory'),
    r(13, 'Package Settings', 'Objlnk', 'RW', 'single', 'optional'),
    r(14, 'User Name', 'String', 'W', 'single', 'optional'),
    r(15, 'Password', 'String', 'W', 'single', 'optional'),
    r(16, 'Status Reason', 'String', 'R', 'single', 'optional'),
    r(17, 'Software Component Link', 'Objlnk', 'R', 'multiple', 'optional'),
    r(18, 'Software Component tree length', 'Integer', 'R', 'single', 'optional')
  ]
}
