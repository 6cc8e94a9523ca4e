// The LwM2M state of devices (lwm2m.repository.ts implements it over migrations/0043_lwm2m_registrations.sql and
// 0044_lwm2m_installs.sql): each system's registration (docs/protocols/lwm2m.md), the systems a DTLS PSK identity
// names, and where each install stands on its device.
import type { Communication } from '../../core/domain/system.js'

/** A registration as stored (OMA LwM2M Core §6.2.1: what Register says, and where it came from). */
export interface Lwm2mRegistration {
  id: string
  systemUid: string
  endpoint: string
  lifetimeS: number
  /** The binding as the device wrote it (`U`, `UQ`, `T`...). */
  binding: string
  queueMode: boolean
  version: string
  /** The object links of the payload, as sent (CoRE link format). */
  objectLinks: string
  /** The transport's key of the device: `udp:<address>:<port>` or `dtls:<address>:<port>`. */
  peer: string
  secure: boolean
  /** The PSK identity of its DTLS session; null over plain CoAP. */
  pskIdentity: string | null
  registeredAt: number
  updatedAt: number
  expiresAt: number
}

export type Lwm2mUpdate = Partial<Pick<Lwm2mRegistration, 'lifetimeS' | 'binding' | 'queueMode' | 'objectLinks'>> & { peer: string, at: number }

/** How far an install went on its device (docs/protocols/lwm2m.md#installs). */
export interface Lwm2mInstall {
  /** The device task's uid. */
  taskUid: string
  /** 5 (Firmware Update) or 9 (Software Management). */
  objectId: number
  instanceId: number
  /** `download` (the Package URI written), `update` (Object 5 Update executed), `install` (Object 9 Install executed). */
  step: string
  updatedAt: number
}

export interface Lwm2mRepository {
  /** Stores a registration, replacing the system's earlier one (a device registers again after a restart). */
  register (r: Lwm2mRegistration): Promise<void>
  /** Applies an Update; answers the registration after it, undefined when the id is unknown (ended or never made). */
  update (id: string, u: Lwm2mUpdate): Promise<Lwm2mRegistration | undefined>
  find (id: string): Promise<Lwm2mRegistration | undefined>
  /** Ends a registration (De-register); answers it, undefined when unknown. */
  remove (id: string): Promise<Lwm2mRegistration | undefined>
  /** Ends the registrations whose lifetime passed before `now` without an Update; answers them. */
  expire (now: number, limit: number): Promise<Lwm2mRegistration[]>
  /** The systems whose communication.lwm2m.pskIdentity is this identity (at most two: one more says it is ambiguous). */
  systemsByPskIdentity (identity: string): Promise<Array<{ systemUid: string, communication: Communication }>>
  /**
   * The install of a device task: `open` while the task waits for its device's answer (PENDING or SENT; false when it
   * was answered, withdrawn, timed out, or is not stored), and how far it went (undefined: not begun).
   */
  installOf (taskUid: string): Promise<{ open: boolean, install: Lwm2mInstall | undefined }>
  /** Records how far an install went (a device task no longer stored is skipped). */
  saveInstall (i: Lwm2mInstall): Promise<void>
  /** The device answered the install: its record goes. */
  endInstall (taskUid: string): Promise<void>
  /** Removes the records of installs whose device task ended otherwise (timed out, cancelled); answers how many. */
  pruneInstalls (): Promise<number>
}
