// Installing an application from the fleet page (docs/packages.md#installs): which of the company's applications the
// dialog offers, and the request's body. No DOM here (tested in test/unit/console/fleet-install.test.ts).
import { selection, type BulkRequest, type Target } from './bulk.js'

export interface InstallableApp {
  uid: string
  name: string
  type: string
  revision: string
  state?: string
  applicationManager?: string | null
}

/**
 * The applications to offer: PUBLISHED ones (those AirVantage clients install: a RELEASED one is published first,
 * from the applications page) that name an update path, without which the service refuses the install. By name,
 * then the newest revision first.
 */
export function installable (apps: readonly InstallableApp[]): InstallableApp[] {
  return apps
    .filter((a) => a.state === 'PUBLISHED' && a.applicationManager != null && a.applicationManager !== '')
    .sort((a, b) => a.name.localeCompare(b.name) || b.revision.localeCompare(a.revision, undefined, { numeric: true }))
}

export function installRequest (t: Target, application: string, requestConnection: boolean): BulkRequest {
  return { path: '/api/v1/operations/systems/applications/install', body: { application, systems: selection(t), requestConnection } }
}
