// The objects of a simulated LwM2M client assembled into its tree (lwm2m-tree.ts): Server, Device, Connectivity and
// Location over one state (lwm2m-device-objects.ts), Firmware Update (lwm2m-firmware.ts) and Software Management
// (lwm2m-software.ts), both downloading through lwm2m-package.ts. What they ask of the session (notify, reboot,
// update the registration) comes through hooks.
import type { LwM2mPath } from '../../protocols/lwm2m/index.js'
import { installedApplications } from '../devices/installed.js'
import { deviceObjects, initialDeviceState, type Lwm2mDeviceState } from './lwm2m-device-objects.js'
import { createFirmwareUpdate, type FirmwareUpdate } from './lwm2m-firmware.js'
import type { Lwm2mDeviceOptions } from './lwm2m-options.js'
import { packageFetcher } from './lwm2m-package.js'
import { bindingOf } from './lwm2m-registration.js'
import { createSoftwareManagement, type SoftwareManagement } from './lwm2m-software.js'
import { Lwm2mTree } from './lwm2m-tree.js'

export interface ClientObjects {
  readonly state: Lwm2mDeviceState
  readonly tree: Lwm2mTree
  readonly firmware: FirmwareUpdate
  readonly software: SoftwareManagement
}

export interface ObjectHooks {
  /** Values changed at these paths (for the observers). */
  changed: (paths: readonly LwM2mPath[]) => void
  /** Restart the device (Execute 3/0/4, a firmware updated). */
  reboot: () => void
  /** Update the registration soon; `links` when the instances changed, `lifetime` when lifetime or binding did. */
  update: (what: { links?: boolean, lifetime?: boolean }) => void
  /** Attributes and observations go with a factory reset. */
  factoryReset: () => void
}

export function clientObjects (o: Lwm2mDeviceOptions, hooks: ObjectHooks): ClientObjects {
  const version = o.version ?? '1.1'
  const state = initialDeviceState(o.endpointName, o.lifetime ?? 300, bindingOf(version, o.queue ?? false))
  const fetchPackage = packageFetcher(o.software)
  const failsInstalls = o.software?.failsInstalls ?? false
  const firmware = createFirmwareUpdate({
    fetchPackage,
    version: o.firmwareVersion ?? '1.0.0',
    failsInstalls,
    updateMs: o.firmwareUpdateMs ?? 200,
    onChange: () => { hooks.changed([{ objectId: 5, instanceId: 0 }, { objectId: 3, instanceId: 0, resourceId: 3 }]) },
    onUpdated: () => { hooks.reboot() }
  })
  const software = createSoftwareManagement({
    fetchPackage,
    applications: o.applications ?? installedApplications(),
    failsInstalls,
    onChange: (id, links) => {
      if (links) hooks.update({ links: true })
      hooks.changed([id === undefined ? { objectId: 9 } : { objectId: 9, instanceId: id }])
    }
  })
  const tree = new Lwm2mTree([...deviceObjects(state, {
    firmwareVersion: () => firmware.firmwareVersion,
    reboot: hooks.reboot,
    factoryReset: () => { o.onFactoryReset?.(); hooks.factoryReset() },
    updateTrigger: () => { hooks.update({}) },
    registrationChanged: () => { hooks.update({ lifetime: true }) }
  }), firmware, software])
  return { state, tree, firmware, software }
}
