// Object 5, Firmware Update (OMA object definition 1.1; 1.0 has resources 0–9 without 4, and Update Result 0–9).
// State and Update Result carry the definition's words, so that a failed install can say why
// (docs/protocols/lwm2m.md: Update Result 1 = SUCCESS, ≥ 2 = FAILURE with the result's name).
import { r, type ObjectModel } from './model.js'

/** 5/0/3 State. */
export const FIRMWARE_STATES: Readonly<Record<number, string>> = {
  0: 'Idle',
  1: 'Downloading',
  2: 'Downloaded',
  3: 'Updating'
}

/** 5/0/5 Update Result. */
export const FIRMWARE_UPDATE_RESULTS: Readonly<Record<number, string>> = {
  0: 'Initial value',
  1: 'Firmware updated successfully',
  2: 'Not enough flash memory for the new firmware package',
  3: 'Out of RAM during downloading process',
  4: 'Connection lost during downloading process',
  5: 'Integrity check failure for new downloaded package',
  6: 'Unsupported package type',
  7: 'Invalid URI',
  8: 'Firmware update failed',
  9: 'Unsupported protocol',
  10: 'Firmware update cancelled',
  11: 'Firmware update deferred'
}

export const FIRMWARE_UPDATE: ObjectModel = {
  id: 5,
  name: 'Firmware Update',
  version: '1.1',
  multiple: false,
  mandatory: false,
  resources: [
    r(0, 'Package', 'Opaque', 'W', 'single', 'mandatory'),
    r(1, 'Package URI', 'String', 'RW', 'single', 'mandatory'),
    r(2, 'Update', 'none', 'E', 'single', 'mandatory'),
    r(3, 'State', 'Integer', 'R', 'single', 'mandatory', { values: FIRMWARE_STATES }),
    r(5, 'Update Result', 'Integer', 'R', 'single', 'mandatory', { values: FIRMWARE_UPDATE_RESULTS }),
    r(6, 'PkgName', 'String', 'R', 'single', 'optional'),
    r(7, 'PkgVersion', 'String', 'R', 'single', 'optional'),
    r(8, 'Firmware Update Protocol Support', 'Integer', 'R', 'multiple', 'optional', {
      values: { 0: 'CoAP', 1: 'CoAPS', 2: 'HTTP 1.1', 3: 'HTTPS 1.1', 4: 'CoAP over TCP', 5: 'CoAP over TLS' }
    }),
    r(9, 'Firmware Update Delivery Method', 'Integer', 'R', 'single', 'mandatory', {
      values: { 0: 'Pull only', 1: 'Push only', 2: 'Both' }
    }),
    r(10, 'Cancel', 'none', 'E', 'single', 'optional'),
    r(11, 'Severity', 'Integer', 'RW', 'single', 'optional'),
    r(12, 'Last State Change Time', 'Time', 'R', 'single', 'optional'),
    r(13, 'Maximum Defer Period', 'Unsigned Integer', 'RW', 'single', 'optional', { units: 's' })
  ]
}
