// What the parts of the M3DA session handler share (session.ts composes them): its dependencies, the peer, the answer.
import type { Logger } from '../../core/logger.js'
import type { DevicesService } from '../../core/services/ingest/devices.service.js'
import type { IngestService } from '../../core/services/ingest/ingest.service.js'
import type { DeviceTask } from '../../core/domain/device-task.js'
import { encodeEnvelope } from '../../protocols/m3da/index.js'
import type { Pipeline } from '../pipeline.js'
import type { DeviceLimits } from '../device-limits.js'
import type { M3daDevices } from './m3da-devices.js'

export interface SessionDeps {
  /** The device login throttle (`guarded`): M3DA devices prove their password by signing, not by a login. */
  devices: Pick<DevicesService, 'guarded'>
  /** The module's service: device lookups, nonces, tickets (m3da-devices.ts). */
  m3da: M3daDevices
  ingest: Pick<IngestService, 'takeTasks'>
  pipeline: Pipeline
  serverId: string
  log: Logger
  /** Each device's budget (ingest/device-limits.ts); M3DA over TCP has one package outstanding, its own backpressure. */
  limits: DeviceLimits
}

/** One peer: a TCP connection (kept across packages) or one HTTP request. */
export interface Peer {
  ip: string
  /** A challenge was sent and not yet answered right: a second failure ends the session (§2.8.4). */
  challenged: boolean
  /** Authentic packages handled: the first one gets the tasks sent before and not answered again. */
  packages: number
  /** TCP: tasks the dispatch handed to this connection (push), for the next reply. */
  outbox?: DeviceTask[]
  /** When the store was last asked for the system's tasks on this peer (ms). */
  polledAt?: number
  /** When its last authentic package came (ms): in session for SESSION_MS after it. */
  lastAt?: number
  /** TCP: the nonce last stored for the system, so that a chatty device costs no read per package. */
  nonce?: { systemUid: string, value: Buffer | null }
  /** The system once a package was authentic (TCP: the connected-devices count). */
  systemUid?: string
  /**
   * TCP: called with the system as soon as a package is found authentic, before the store is asked for its tasks, so
   * that the connection is a push target from then on: a task committed after that read is pushed to it, never left
   * waiting for the next read of the store (SESSION_MS later).
   */
  joined?: (systemUid: string) => void
  /** A reply that carried tasks was lost (answered 503): the next package takes the unanswered tasks again. */
  retake?: boolean
  /** One HTTP request (POST /device/com), not a TCP connection: nothing to close. */
  http?: boolean
  /**
   * Our last reply carried a payload, so it was also a request (§2.5): the device's next envelope with a status and
   * no payload is its reply, which ends the session and is not answered. Any other envelope is answered, a keep-alive
   * included (the agent puts status 200 in every inner header).
   */
  awaitingReply?: boolean
}

/** The reply (null: answer nothing), its M3DA status, and whether the connection must end after it. */
export interface Answer { reply: Buffer | null, status: number, close: boolean }

/** An unsigned envelope that only carries a status (403, 400, 500...: §2.4 status codes). */
export function statusEnvelope (status: number): Buffer {
  return encodeEnvelope({ header: { status }, payload: Buffer.alloc(0), footer: {} })
}

export const plain = (status: number, close = false): Answer => ({ reply: statusEnvelope(status), status, close })
