// Object 9, LwM2M Software Management (OMA object 9; docs/protocols/lwm2m.md "install: LWM2M_SW"): one
// instance per installed package (the device's InstalledApplications, installed.ts), and instances the server
// creates for a new one. Write Package URI (9/x/3) → Update State 1 DOWNLOAD STARTED (Update Result 1 Downloading)
// → 3 DELIVERED (Result 3: downloaded, integrity verified), or back to 0 INITIAL with Result 52/53/56; Install (9/x/4)
// → 4 INSTALLED (Result 2), or Result 58 "Software installation failure" for the failing share; Uninstall (9/x/6)
// removes the package and its instance; Activate / Deactivate (9/x/10, 9/x/11) start and stop it (9/x/12).
// A Write of 9/x/3 on an instance that does not exist creates it, as if the server had created it first.
import type { InstalledApplications } from '../devices/installed.js'
import type { FetchedPackage, PackageFetch } from './lwm2m-firmware.js'
import type { InstanceResources, ObjectInstances, Outcome, ResourceValue } from './lwm2m-tree.js'

/** 9/x/7 Update State, by name. */
export const SW_STATE = { initial: 0, downloadStarted: 1, downloaded: 2, delivered: 3, installed: 4 } as const
/** 9/x/9 Update Result values the device sets. */
export const SW_RESULT = { initial: 0, downloading: 1, installed: 2, delivered: 3, connectionLost: 52, integrity: 53, invalidUri: 56, installFailure: 58 } as const

const FAILURE_RESULT: Record<Exclude<FetchedPackage, { ok: true }>['failure'], number> = {
  connection: SW_RESULT.connectionLost,
  integrity: SW_RESULT.integrity,
  uri: SW_RESULT.invalidUri,
  protocol: SW_RESULT.invalidUri,
  stopped: SW_RESULT.connectionLost
}

export interface SoftwareManagementOptions {
  fetchPackage: PackageFetch
  applications: InstalledApplications
  failsInstalls?: boolean
  /** An instance changed (values, or instances added or removed: `links` true then, the registration must say so). */
  onChange?: (instanceId: number | undefined, links: boolean) => void
}

interface Slot { name: string, version: string, uri: string, state: number, result: number, gen: number }

export interface SoftwareManagement extends ObjectInstances {
  slot (instanceId: number): Readonly<Slot> | undefined
  settled (): Promise<void>
}

interface SlotsContext {
  apps: InstalledApplications
  slots: Map<number, Slot>
  failsInstalls: boolean
  changed: (id: number | undefined, links?: boolean) => void
}

/** Install (4), Uninstall (6: the package goes, and its instance with it), Activate (10), Deactivate (11). */
function execute (c: SlotsContext, id: number, s: Slot, resourceId: number): Outcome {
  switch (resourceId) {
    case 4:
      if (s.state !== SW_STATE.delivered) return 'not.allowed'
      if (c.failsInstalls) s.result = SW_RESULT.installFailure
      else { c.apps.install(s.name, s.version); Object.assign(s, { state: SW_STATE.installed, result: SW_RESULT.installed }) }
      c.changed(id)
      return 'ok'
    case 6:
      if (s.state === SW_STATE.installed) c.apps.uninstall(s.name, s.version)
      c.slots.delete(id)
      c.changed(undefined, true)
      return 'ok'
    case 10:
    case 11:
      if (s.state !== SW_STATE.installed) return 'not.allowed'
      c.apps.setRunning(s.name, s.version, resourceId === 10)
      c.changed(id)
      return 'ok'
    default:
      return 'not.allowed'
  }
}

export function createSoftwareManagement (o: SoftwareManagementOptions): SoftwareManagement {
  const apps = o.applications
  const slots = new Map<number, Slot>()
  for (const a of apps.list()) slots.set(slots.size, { name: a.type, version: a.revision, uri: '', state: SW_STATE.installed, result: SW_RESULT.initial, gen: 0 })
  let work: Promise<void> = Promise.resolve()
  const changed = (id: number | undefined, links = false): void => { o.onChange?.(id, links) }
  const ctx: SlotsContext = { apps, slots, failsInstalls: o.failsInstalls === true, changed }
  const running = (s: Slot): boolean => apps.list().some((a) => a.type === s.name && a.revision === s.version && a.running)

  function freeId (): number {
    let id = 0
    while (slots.has(id)) id++
    return id
  }

  async function pull (id: number, s: Slot, gen: number): Promise<void> {
    const got = await o.fetchPackage(s.uri)
    if (s.gen !== gen || slots.get(id) !== s) return
    if (got.ok) Object.assign(s, { name: got.name, version: got.version, state: SW_STATE.delivered, result: SW_RESULT.delivered })
    else if (got.failure !== 'stopped') Object.assign(s, { state: SW_STATE.initial, result: FAILURE_RESULT[got.failure] })
    changed(id)
  }

  function writeUri (id: number, s: Slot, uri: string): Outcome {
    if (s.state === SW_STATE.downloadStarted || s.state === SW_STATE.installed) return 'bad.request'
    const gen = ++s.gen
    Object.assign(s, { uri, state: SW_STATE.downloadStarted, result: SW_RESULT.downloading })
    changed(id)
    work = pull(id, s, gen)
    return 'ok'
  }

  function instance (id: number, s: Slot): InstanceResources {
    return {
      values: () => new Map<number, ResourceValue>([
        [0, s.name], [1, s.version], [3, s.uri], [7, s.state], [9, s.result], [12, s.state === SW_STATE.installed && running(s)]
      ]),
      write: (resourceId, value) => resourceId === 3 && typeof value === 'string' ? writeUri(id, s, value) : 'not.allowed',
      execute: (resourceId) => execute(ctx, id, s, resourceId),
      executables: [4, 6, 10, 11]
    }
  }

  function create (instanceId: number | undefined): number | undefined {
    const id = instanceId ?? freeId()
    if (slots.has(id)) return undefined
    slots.set(id, { name: '', version: '', uri: '', state: SW_STATE.initial, result: SW_RESULT.initial, gen: 0 })
    changed(undefined, true)
    return id
  }

  return {
    id: 9,
    version: '1.0',
    instances: () => new Map([...slots].map(([id, s]) => [id, instance(id, s)])),
    create,
    delete (instanceId) {
      const s = slots.get(instanceId)
      return s === undefined ? 'not.found' : execute(ctx, instanceId, s, 6)
    },
    slot: (id) => slots.get(id),
    async settled () {
      let current: Promise<void>
      do { current = work; await current } while (current !== work)
    }
  }
}
