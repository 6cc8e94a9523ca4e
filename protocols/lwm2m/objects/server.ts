// Object 1, LwM2M Server (OMA object definition 1.1; 0–8 are the 1.0 resources). 13–20 have no operations in the
// definition: only a bootstrap server writes them.
import { r, type ObjectModel } from './model.js'

export const SERVER: ObjectModel = {
  id: 1,
  name: 'LwM2M Server',
  version: '1.1',
  multiple: true,
  mandatory: true,
  resources: [
    r(0, 'Short Server ID', 'Integer', 'R', 'single', 'mandatory'),
    r(1, 'Lifetime', 'Integer', 'RW', 'single', 'mandatory', { units: 's' }),
    r(2, 'Default Minimum Period', 'Integer', 'RW', 'single', 'optional', { units: 's' }),
    r(3, 'Default Maximum Period', 'Integer', 'RW', 'single', 'optional', { units: 's' }),
    r(4, 'Disable', 'none', 'E', 'single', 'optional'),
    r(5, 'Disable Timeout', 'Integer', 'RW', 'single', 'optional', { units: 's' }),
    r(6, 'Notification Storing When Disabled or Offline', 'Boolean', 'RW', 'single', 'mandatory'),
    r(7, 'Binding', 'String', 'RW', 'single', 'mandatory'),
    r(8, 'Registration Update Trigger', 'none', 'E', 'single', 'mandatory'),
    r(9, 'Bootstrap-Request Trigger', 'none', 'E', 'single', 'optional'),
    r(10, 'APN Link', 'Objlnk', 'RW', 'single', 'optional'),
    r(11, 'TLS-DTLS Alert Code', 'Unsigned Integer', 'R', 'single', 'optional'),
    r(12, 'Last Bootstrapped', 'Time', 'R', 'single', 'optional'),
    r(13, 'Registration Priority Order', 'Unsigned Integer', '', 'single', 'optional'),
    r(14, 'Initial Registration Delay Timer', 'Unsigned Integer', '', 'single', 'optional', { units: 's' }),
    r(15, 'Registration Failure Block', 'Boolean', '', 'single', 'optional'),
    r(16, 'Bootstrap on Registration Failure', 'Boolean', '', 'single', 'optional'),
    r(17, 'Communication Retry Count', 'Unsigned Integer', '', 'single', 'optional'),
    r(18, 'Communication Retry Timer', 'Unsigned Integer', '', 'single', 'optional', { units: 's' }),
    r(19, 'Communication Sequence Delay Timer', 'Unsigned Integer', '', 'single', 'optional', { units: 's' }),
    r(20, 'Communication Sequence Retry Count', 'Unsigned Integer', '', 'single', 'optional'),
    r(21, 'Trigger', 'Boolean', 'RW', 'single', 'optional'),
    r(22, 'Preferred Transport', 'String', 'RW', 'single', 'optional'),
    r(23, 'Mute Send', 'Boolean', 'RW', 'single', 'optional')
  ]
}
