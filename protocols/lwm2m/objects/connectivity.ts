// Object 4, Connectivity Monitoring (OMA object definition 1.1). Network Bearer values: 0–20 cellular, 21–40
// wireless, 41–50 wireline; the ones the definition names are listed.
import { r, type ObjectModel } from './model.js'

const BEARERS = {
  0: 'GSM cellular network',
  1: 'TD-SCDMA cellular network',
  2: 'WCDMA cellular network',
  3: 'CDMA2000 cellular network',
  4: 'WiMAX cellular network',
  5: 'LTE-TDD cellular network',
  6: 'LTE-FDD cellular network',
  7: 'NB-IoT',
  21: 'WLAN network',
  22: 'Bluetooth network',
  23: 'IEEE 802.15.4 network',
  41: 'Ethernet',
  42: 'DSL',
  43: 'PLC'
}

export const CONNECTIVITY_MONITORING: ObjectModel = {
  id: 4,
  name: 'Connectivity Monitoring',
  version: '1.1',
  multiple: false,
  mandatory: false,
  resources: [
    r(0, 'Network Bearer', 'Integer', 'R', 'single', 'mandatory', { values: BEARERS }),
    r(1, 'Available Network Bearer', 'Integer', 'R', 'multiple', 'mandatory', { values: BEARERS }),
    r(2, 'Radio Signal Strength', 'Integer', 'R', 'single', 'mandatory', { units: 'dBm' }),
    r(3, 'Link Quality', 'Integer', 'R', 'single', 'optional'),
    r(4, 'IP Addresses', 'String', 'R', 'multiple', 'mandatory'),
    r(5, 'Router IP Addresses', 'String', 'R', 'multiple', 'optional'),
    r(6, 'Link Utilization', 'Integer', 'R', 'single', 'optional', { units: '%' }),
    r(7, 'APN', 'String', 'R', 'multiple', 'optional'),
    r(8, 'Cell ID', 'Integer', 'R', 'single', 'optional'),
    r(9, 'SMNC', 'Integer', 'R', 'single', 'optional'),
    r(10, 'SMCC', 'Integer', 'R', 'single', 'optional'),
    r(11, 'SignalSNR', 'Integer', 'R', 'single', 'optional', { units: 'dB' })
  ]
}
