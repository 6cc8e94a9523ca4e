// LwM2M device lookups (docs/protocols/lwm2m.md): a device names itself by its endpoint client name (the gateway
// serial number or IMEI) in Register, and proves it either by the DTLS session its PSK opened or, in the NoSec mode,
// not at all, which its application must allow (`security: "none"`). The company's deviceIpFiltering applies as for
// every device. What to observe comes from the application's LWM2M data tree.
import type { Repositories } from '../../core/ports/repositories.js'
import { ipAllowed } from '../../core/domain/ip-filters.js'
import { communicationParameters, flattenData, type ActionType } from '../../core/domain/application-model.js'
import type { Application, Communication } from '../../core/domain/system.js'
import type { DeviceSession } from '../../core/services/ingest/device-session.js'
import { dataIdToPath, type LwM2mPath } from '../../protocols/lwm2m/index.js'
import type { Lwm2mRepository } from './lwm2m.port.js'

/** What the system's LWM2M application and communication say about one device. */
export interface Lwm2mDevice {
  session: DeviceSession
  /** The LWM2M application's `parameters.security` ("none" admits NoSec devices), null when not given. */
  security: string | null
  /** The object instances to observe (the data tree's, else the default /3/0, /4/0, /6/0). */
  observe: LwM2mPath[]
  /** The kind of each action element of the system's applications, by its data id (what command tasks name). */
  actions: ReadonlyMap<string, ActionType>
}

export type Lwm2mLookup =
  | { ok: true, device: Lwm2mDevice }
  | { ok: false, reason: 'device.unknown' | 'device.ip.forbidden' }

export const DEFAULT_OBSERVED: readonly LwM2mPath[] = [{ objectId: 3, instanceId: 0 }, { objectId: 4, instanceId: 0 }, { objectId: 6, instanceId: 0 }]

const HEX_KEY = /^(?:[0-9a-fA-F]{2}){1,64}$/ // RFC 4279 §5.3: a PSK of at most 64 bytes

const text = (v: unknown): string | null => typeof v === 'string' && v !== '' ? v : null

/** The key of communication.lwm2m.pskSecretHex, undefined when absent or not hex. */
export function pskOf (c: Communication): Buffer | undefined {
  const hex = c.lwm2m?.pskSecretHex
  return typeof hex === 'string' && HEX_KEY.test(hex) ? Buffer.from(hex, 'hex') : undefined
}

/**
 * The object instances the LWM2M applications' data trees name (`lwm2m.<object>.<instance>...` ids, elements encoded
 * LWM2M or of an application speaking it), each once; the default when they name none.
 */
export function observedPaths (applications: readonly Application[]): LwM2mPath[] {
  const seen = new Map<string, LwM2mPath>()
  for (const a of applications) {
    const speaks = a.communication.some((c) => c.type === 'LWM2M')
    for (const d of flattenData(a.data)) {
      if (!speaks && d.encoding !== 'LWM2M') continue
      const p = dataIdToPath(d.id)
      if (p === undefined || p.instanceId === undefined) continue
      seen.set(`${p.objectId}/${p.instanceId}`, { objectId: p.objectId, instanceId: p.instanceId })
    }
  }
  return seen.size === 0 ? [...DEFAULT_OBSERVED] : [...seen.values()]
}

function actionsOf (applications: readonly Application[]): Map<string, ActionType> {
  const out = new Map<string, ActionType>()
  for (const a of applications) {
    for (const d of flattenData(a.data)) if (d.elementType === 'action' && d.actionType !== null && !out.has(d.id)) out.set(d.id, d.actionType)
  }
  return out
}

export interface Lwm2mDevicesDeps {
  repos: Pick<Repositories, 'systems' | 'companies' | 'applications'>
  store: Lwm2mRepository
}

export function createLwm2mDevices ({ repos, store }: Lwm2mDevicesDeps) {
  /** The system an identifier (endpoint name) names, with its communication; undefined when none. */
  async function systemOf (identifier: string) {
    // No identifier holds a NUL byte (PostgreSQL text cannot): unknown, never a failed statement.
    if (identifier === '' || identifier.includes('\u0000')) return undefined
    const owner = await repos.systems.systemByCommIdentifier(identifier)
    const system = owner === undefined ? undefined : await repos.systems.findByUid(owner.companyUid, owner.systemUid)
    return owner === undefined || system === undefined ? undefined : { owner, system }
  }

  /**
   * The one system a PSK identity names: the system whose communication.lwm2m.pskIdentity it is, else the system
   * whose endpoint name it is, unless that system set another identity. Two systems claiming it: none (ambiguous).
   */
  async function identityOwner (identity: string): Promise<{ systemUid: string, communication: Communication } | undefined> {
    if (identity === '' || identity.includes('\u0000')) return undefined
    const claimed = await store.systemsByPskIdentity(identity)
    if (claimed.length > 1) return undefined
    if (claimed[0] !== undefined) return claimed[0]
    const byName = await systemOf(identity)
    if (byName === undefined || text(byName.system.communication.lwm2m?.pskIdentity) !== null) return undefined
    return { systemUid: byName.owner.systemUid, communication: byName.system.communication }
  }

  /** DTLS: the key of a PSK identity (undefined: unknown identity, or no key set). */
  async function pskFor (identity: string): Promise<Buffer | undefined> {
    const owner = await identityOwner(identity)
    return owner === undefined ? undefined : pskOf(owner.communication)
  }

  /** The device an endpoint name names; never throws on an unknown or filtered device, answers why. */
  async function lookup (endpoint: string, ip: string): Promise<Lwm2mLookup> {
    const found = await systemOf(endpoint)
    if (found === undefined) return { ok: false, reason: 'device.unknown' }
    const { owner } = found
    const company = await repos.companies.findByUid(owner.companyUid)
    if (company?.deviceIpFiltering === true && !ipAllowed(company.deviceIpFilters, ip)) return { ok: false, reason: 'device.ip.forbidden' }
    const applications = (await repos.applications.forSystems([owner.systemUid])).get(owner.systemUid) ?? []
    return {
      ok: true,
      device: {
        session: { systemUid: owner.systemUid, companyUid: owner.companyUid, username: endpoint },
        security: text(communicationParameters(applications, 'LWM2M').security),
        observe: observedPaths(applications),
        actions: actionsOf(applications)
      }
    }
  }

  return { pskFor, lookup, identityOwner }
}

export type Lwm2mDevices = ReturnType<typeof createLwm2mDevices>
