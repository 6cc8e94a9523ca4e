// M3DA device lookups (docs/protocols/m3da.md): an M3DA device names itself in the envelope header
// (gateway serial number or IMEI) and proves it with a MAC rather than a login, so the transport first learns what
// the system expects of it: its M3DA password or registration password, and what its M3DA application declares
// (`parameters.authentication`, `parameters.encryption`). The company's deviceIpFiltering applies as for every
// device. The state the security extension keeps (nonces, tickets, the password agreed by auto-registration) is
// stored through the M3daRepository port (m3da.port.ts).
import type { Clock } from '../../core/ports/store.js'
import type { Repositories } from '../../core/ports/repositories.js'
import { ipAllowed } from '../../core/domain/ip-filters.js'
import { communicationParameters, flattenData, type ActionType } from '../../core/domain/application-model.js'
import type { Application } from '../../core/domain/system.js'
import type { DeviceSession } from '../../core/services/ingest/device-session.js'
import type { M3daRepository } from './m3da.port.js'

/** What the system's M3DA application and communication say about one device. */
export interface M3daDevice {
  session: DeviceSession
  /** communication.m3da.password: the device must sign with it. */
  password: string | null
  /** communication.m3da.registrationPassword: the device may auto-register with it. */
  registrationPassword: string | null
  /** The M3DA application's `parameters.authentication` ("none" admits unsigned agents), null when not given. */
  authentication: string | null
  /** The M3DA application's `parameters.encryption` (none, aes-cbc-128...), null when not given. */
  encryption: string | null
  /** The kind of each action element of the system's applications, by its data id (what command tasks name). */
  actions: ReadonlyMap<string, ActionType>
}

export type M3daLookup =
  | { ok: true, device: M3daDevice }
  | { ok: false, reason: 'device.unknown' | 'device.ip.forbidden' }

export interface M3daDevicesDeps {
  repos: Pick<Repositories, 'systems' | 'companies' | 'applications'>
  /** The module's own store (m3da.repository.ts). */
  store: M3daRepository
  clock: Clock
}

const text = (v: unknown): string | null => typeof v === 'string' && v !== '' ? v : null

function actionsOf (applications: readonly Application[]): Map<string, ActionType> {
  const out = new Map<string, ActionType>()
  for (const a of applications) {
    for (const d of flattenData(a.data)) if (d.elementType === 'action' && d.actionType !== null && !out.has(d.id)) out.set(d.id, d.actionType)
  }
  return out
}

// Nonces are written behind, coalesced per device (one statement for every device of a turn): a secured agent
// changes its nonce at every package, and one write each was what made secured M3DA slow (bench ingest --protocol
// m3da). A nonce lost in a crash within this delay costs the device one 401 challenge, after which the chain
// goes on (§2.8.4): nothing it sent is lost.
const NONCE_FLUSH_MS = 50

function createNonceWriter (store: M3daRepository, clock: Clock) {
  let pending = new Map<string, Buffer>()
  let writing = new Map<string, Buffer>()
  let timer: NodeJS.Timeout | undefined
  let flushing: Promise<void> | undefined

  async function flush (): Promise<void> {
    timer = undefined
    if (flushing !== undefined) { await flushing; return }
    if (pending.size === 0) return
    writing = pending
    pending = new Map()
    flushing = store.setNonces([...writing].map(([systemUid, nonce]) => ({ systemUid, nonce })), clock.now())
      .catch(() => { for (const [u, n] of writing) if (!pending.has(u)) pending.set(u, n) }) // written again later
      .finally(() => { writing = new Map(); flushing = undefined; if (pending.size > 0) schedule() })
    await flushing
  }

  function schedule (): void {
    if (timer !== undefined) return
    timer = setTimeout(() => { flush().catch(() => {}) }, NONCE_FLUSH_MS)
    timer.unref()
  }

  return {
    note (systemUid: string, nonce: Buffer): void { pending.set(systemUid, nonce); schedule() },
    async read (systemUid: string): Promise<Buffer | null> {
      return pending.get(systemUid) ?? writing.get(systemUid) ?? await store.nonce(systemUid)
    },
    /** Writes what is pending now (the transport's close). */
    async flushAll (): Promise<void> {
      if (timer !== undefined) clearTimeout(timer)
      while (pending.size > 0 || flushing !== undefined) await flush()
    }
  }
}

export function createM3daDevices ({ repos, store, clock }: M3daDevicesDeps) {
  const nonces = createNonceWriter(store, clock)

  /** The device named by an envelope's `id`; never throws on an unknown or filtered device, answers why. */
  async function lookup (identifier: string, ip: string): Promise<M3daLookup> {
    // No identifier holds a NUL byte (PostgreSQL text cannot): unknown, never a failed statement.
    if (identifier === '' || identifier.includes('\u0000')) return { ok: false, reason: 'device.unknown' }
    const owner = await repos.systems.systemByCommIdentifier(identifier)
    const system = owner === undefined ? undefined : await repos.systems.findByUid(owner.companyUid, owner.systemUid)
    if (owner === undefined || system === undefined) return { ok: false, reason: 'device.unknown' }
    const company = await repos.companies.findByUid(owner.companyUid)
    if (company?.deviceIpFiltering === true && !ipAllowed(company.deviceIpFilters, ip)) return { ok: false, reason: 'device.ip.forbidden' }
    const applications = (await repos.applications.forSystems([owner.systemUid])).get(owner.systemUid) ?? []
    const params = communicationParameters(applications, 'M3DA')
    const m3da = system.communication.m3da
    return {
      ok: true,
      device: {
        session: { systemUid: owner.systemUid, companyUid: owner.companyUid, username: identifier },
        password: text(m3da?.password),
        registrationPassword: text(m3da?.registrationPassword),
        authentication: text(params.authentication),
        encryption: text(params.encryption),
        actions: actionsOf(applications)
      }
    }
  }

  return {
    lookup,
    nonce: nonces.read,
    /** Only after a successful authentication or a challenge (docs/protocols/m3da.md); written behind (above). */
    setNonce: (systemUid: string, nonce: Buffer): void => { nonces.note(systemUid, nonce) },
    /** Writes the nonces not written yet. */
    flush: nonces.flushAll,
    tickets: async (systemUid: string, taskUids: readonly string[]) => await store.tickets(systemUid, taskUids, clock.now()),
    tasksOf: async (systemUid: string, tickets: readonly number[]) => await store.tasksOf(systemUid, tickets),
    release: async (systemUid: string, tickets: readonly number[]) => { await store.release(systemUid, tickets) },
    /** The password auto-registration agreed becomes communication.m3da.password (docs/protocols/m3da.md). */
    setPassword: async (systemUid: string, password: string) => { await store.setPassword(systemUid, password) }
  }
}

export type M3daDevices = ReturnType<typeof createM3daDevices>
