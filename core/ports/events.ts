// Committed changes, as the live stream (GET /api/v1/stream) delivers them. Published after the commit
// that made them, never before: a subscriber never sees what a rollback took back. In one process by default; on
// Redis pub/sub with REDIS_URL, so that a change committed in one process reaches the streams of every other.
import type { DataValue, DeviceProtocol } from '../domain/device-message.js'
import type { Counters, OperationState, OperationType } from '../domain/operation.js'

/** A device message with its points (docs/devices.md: one stored message per accepted payload). */
export interface MessageEvent {
  kind: 'message'
  /** The system's company when the message was committed (a transferred system's events follow it). */
  company: string
  system: string
  uid: string
  protocol: DeviceProtocol
  timestamp: number
  points: Array<{ dataId: string, ts: number, v: DataValue }>
}

/** A system's commStatus changed (docs/devices.md: OK on traffic, WARNING then ERROR when it misses its period). */
export interface CommStatusEvent {
  kind: 'commStatus'
  company: string
  system: string
  status: string
  lastCommDate: number | null
}

/** An operation's state or task counters changed (docs/operations.md#bulk-operations). */
export interface OperationEvent {
  kind: 'operation'
  company: string
  uid: string
  type: OperationType
  state: OperationState
  counters: Counters
}

/** An alert rule raised an alert on a system (docs/alerts.md), once the alert is committed. */
export interface AlertEvent {
  kind: 'alert'
  company: string
  system: string
  /** The alert's uid. */
  uid: string
  rule: string
  ruleName: string
  date: number
}

export type FleetEvent = MessageEvent | CommStatusEvent | OperationEvent | AlertEvent

export type EventListener<E = FleetEvent> = (event: E) => void

/**
 * `E`: what travels on the bus. The live stream's bus carries FleetEvent; a bus on a channel of its own may carry
 * something else (core/ports/certificates.ts CertificateEvent), unseen by the streams.
 */
export interface EventBus<E = FleetEvent> {
  /**
   * Hands committed changes to every subscriber of every process; never throws and never waits (a lost Redis
   * connection loses the events, not the commit: the stream is live, the REST API stays the record).
   */
  publish (events: readonly E[]): void
  /** Adds a listener; resolves once it is sure to hear what is published after, with the function that removes it. */
  subscribe (listener: EventListener<E>): Promise<() => void>
  /**
   * Whether a publish may reach anyone: false while no stream is open anywhere, so that publishers skip building
   * events nobody reads (the operations' progress costs store reads).
   */
  listening (): boolean
  close (): Promise<void>
}
