// Object 0, LwM2M Security (OMA object definition 1.0, resources 0–12): bootstrap-only, hence no operations. Kept
// minimal: the service reads none of it; the model types what a bootstrap write or a Send could carry.
import { r, type ObjectModel } from './model.js'

export const SECURITY: ObjectModel = {
  id: 0,
  name: 'LwM2M Security',
  version: '1.0',
  multiple: true,
  mandatory: true,
  resources: [
    r(0, 'LwM2M Server URI', 'String', '', 'single', 'mandatory'),
    r(1, 'Bootstrap-Server', 'Boolean', '', 'single', 'mandatory'),
    r(2, 'Security Mode', 'Integer', '', 'single', 'mandatory', {
      values: { 0: 'Pre-Shared Key mode', 1: 'Raw Public Key mode', 2: 'Certificate mode', 3: 'NoSec mode', 4: 'Certificate mode with EST' }
    }),
    r(3, 'Public Key or Identity', 'Opaque', '', 'single', 'mandatory'),
    r(4, 'Server Public Key', 'Opaque', '', 'single', 'mandatory'),
    r(5, 'Secret Key', 'Opaque', '', 'single', 'mandatory'),
    r(6, 'SMS Security Mode', 'Integer', '', 'single', 'optional'),
    r(7, 'SMS Binding Key Parameters', 'Opaque', '', 'single', 'optional'),
    r(8, 'SMS Binding Secret Key(s)', 'Opaque', '', 'single', 'optional'),
    r(9, 'LwM2M Server SMS Number', 'String', '', 'single', 'optional'),
    r(10, 'Short Server ID', 'Integer', '', 'single', 'optional'),
    r(11, 'Client Hold Off Time', 'Integer', '', 'single', 'optional', { units: 's' }),
    r(12, 'Bootstrap-Server Account Timeout', 'Integer', '', 'single', 'optional', { units: 's' })
  ]
}
