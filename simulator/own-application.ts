// An application of the simulator's own in the company, for a protocol whose public generic application cannot admit
// its devices as the simulator runs them (M3DA without security, LwM2M over NoSec or DTLS: who must authenticate is
// read from the system's application, docs/devices.md), created once and found again by its type, with the data
// tree of the protocol's generic application when the catalogue has one (so that the device operations find the
// settings and actions they name).
import { findApplication, ProvisionError, type ApiClient } from './provision.js'

export interface OwnApplication {
  type: string
  name: string
  /** The one communication entry: the protocol, its identifier and parameters. */
  communication: { type: string, commIdType: string, parameters: Record<string, string> }
  /** The catalogue's generic application whose data tree it takes, if any. */
  dataOf?: string
}

async function dataTree (api: ApiClient, genericType: string | undefined): Promise<unknown[]> {
  const generic = genericType === undefined ? undefined : await findApplication(api, genericType)
  if (generic === undefined) return []
  const res = await api.request('GET', `/api/v1/applications/${encodeURIComponent(generic)}`)
  if (res.status !== 200) throw new ProvisionError(`reading the ${genericType ?? ''} application failed (${res.status}): ${JSON.stringify(res.json)}`)
  return (res.json as { data?: unknown[] }).data ?? []
}

/** The uid of the company's application of this type, created the first time. @throws ProvisionError */
export async function ownApplication (api: ApiClient, app: OwnApplication): Promise<string> {
  const found = await findApplication(api, app.type)
  if (found !== undefined) return found
  const res = await api.request('POST', '/api/v1/applications', {
    name: app.name, revision: '1.0', type: app.type, category: 'FIRMWARE', communication: [app.communication], data: await dataTree(api, app.dataOf)
  })
  if (res.status === 200) return (res.json as { uid: string }).uid
  // Another simulator run created it meanwhile (one per type and revision in a company).
  const again = await findApplication(api, app.type)
  if (again !== undefined) return again
  throw new ProvisionError(`creating the ${app.type} application failed (${res.status}): ${JSON.stringify(res.json)}`)
}
