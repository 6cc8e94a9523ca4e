// Object 6, Location (OMA object definition 1.0).
import { r, type ObjectModel } from './model.js'

export const LOCATION: ObjectModel = {
  id: 6,
  name: 'Location',
  version: '1.0',
  multiple: false,
  mandatory: false,
  resources: [
    r(0, 'Latitude', 'Float', 'R', 'single', 'mandatory', { units: 'lat' }),
    r(1, 'Longitude', 'Float', 'R', 'single', 'mandatory', { units: 'lon' }),
    r(2, 'Altitude', 'Float', 'R', 'single', 'optional', { units: 'm' }),
    r(3, 'Radius', 'Float', 'R', 'single', 'optional', { units: 'm' }),
    r(4, 'Velocity', 'Opaque', 'R', 'single', 'optional'),
    r(5, 'Timestamp', 'Time', 'R', 'single', 'mandatory'),
    r(6, 'Speed', 'Float', 'R', 'single', 'optional', { units: 'm/s' })
  ]
}
