// Object 3, Device (OMA object definition 1.1). Available Power Sources (6), Error Code (11) and Battery Status (20)
// carry the meanings of their values.
import { r, type ObjectModel } from './model.js'

const POWER_SOURCES = {
  0: 'DC power',
  1: 'Internal Battery',
  2: 'External Battery',
  3: 'Fuel Cell',
  4: 'Power over Ethernet',
  5: 'USB',
  6: 'AC (Mains) power',
  7: 'Solar'
}

const ERROR_CODES = {
  0: 'No error',
  1: 'Low battery power',
  2: 'External power supply off',
  3: 'GPS module failure',
  4: 'Low received signal strength',
  5: 'Out of memory',
  6: 'SMS failure',
  7: 'IP connectivity failure',
  8: 'Peripheral malfunction'
}

export const DEVICE: ObjectModel = {
  id: 3,
  name: 'Device',
  version: '1.1',
  multiple: false,
  mandatory: true,
  resources: [
    r(0, 'Manufacturer', 'String', 'R', 'single', 'optional'),
    r(1, 'Model Number', 'String', 'R', 'single', 'optional'),
    r(2, 'Serial Number', 'String', 'R', 'single', 'optional'),
    r(3, 'Firmware Version', 'String', 'R', 'single', 'optional'),
    r(4, 'Reboot', 'none', 'E', 'single', 'mandatory'),
    r(5, 'Factory Reset', 'none', 'E', 'single', 'optional'),
    r(6, 'Available Power Sources', 'Integer', 'R', 'multiple', 'optional', { values: POWER_SOURCES }),
    r(7, 'Power Source Voltage', 'Integer', 'R', 'multiple', 'optional', { units: 'mV' }),
    r(8, 'Power Source Current', 'Integer', 'R', 'multiple', 'optional', { units: 'mA' }),
    r(9, 'Battery Level', 'Integer', 'R', 'single', 'optional', { units: '%' }),
    r(10, 'Memory Free', 'Integer', 'R', 'single', 'optional', { units: 'KB' }),
    r(11, 'Error Code', 'Integer', 'R', 'multiple', 'mandatory', { values: ERROR_CODES }),
    r(12, 'Reset Error Code', 'none', 'E', 'single', 'optional'),
    r(13, 'Current Time', 'Time', 'RW', 'single', 'optional'),
    r(14, 'UTC Offset', 'String', 'RW', 'single', 'optional'),
    r(15, 'Timezone', 'String', 'RW', 'single', 'optional'),
    r(16, 'Supported Binding and Modes', 'String', 'R', 'single', 'mandatory'),
    r(17, 'Device Type', 'String', 'R', 'single', 'optional'),
    r(18, 'Hardware Version', 'String', 'R', 'single', 'optional'),
    r(19, 'Software Version', 'String', 'R', 'single', 'optional'),
    r(20, 'Battery Status', 'Integer', 'R', 'single', 'optional', {
      values: { 0: 'Normal', 1: 'Charging', 2: 'Charge Complete', 3: 'Damaged', 4: 'Low Battery', 5: 'Not Installed', 6: 'Unknown' }
    }),
    r(21, 'Memory Total', 'Integer', 'R', 'single', 'optional'),
    r(22, 'ExtDevInfo', 'Objlnk', 'R', 'multiple', 'optional')
  ]
}
