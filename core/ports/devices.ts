// Ports between the operations (core) and the device transports (ingest/): declared here, implemented in ingest/ and
// storage/, wired in bin/ (docs/architecture.md#layers). The operations write device tasks in their transaction and,
// once it is committed, ask the dispatch to deliver them; the transports bring the answers back through DeviceAnswers.
import type { DeviceProtocol } from '../domain/device-message.js'
import type { AnswerStatus, DeviceAnswer, DeviceTask, DeviceTaskRecord } from '../domain/device-task.js'

/** What the operations ask of the transports once device tasks are committed. */
export interface DispatchRequest {
  systemUid: string
  protocol: DeviceProtocol
  /** Ask the device to connect when no transport has it connected (requestConnection, wake-up). */
  requestConnection: boolean
}

/**
 * A device transport as the dispatch sees it: one that can send tasks to the devices it has connected in this process
 * (MQTT, M3DA over TCP, Sparkplug B). Polling transports (REST, MSCI) are no pushers: their devices fetch.
 */
export interface TaskPusher {
  /** Its name in logs ("mqtt", "m3da"...). */
  readonly name: string
  /** The device protocols whose tasks it carries. */
  readonly protocols: readonly DeviceProtocol[]
  /** Whether the system has a connection to this process over it. */
  connected (systemUid: string): boolean
  /** Sends tasks to a connected device; false when it is not connected here (they wait for its next connection). */
  push (systemUid: string, tasks: readonly DeviceTask[]): Promise<boolean>
}

/**
 * The pushers of this process (core/services/ingest/task-pushers.ts). Built before the services that are given the
 * dispatch; each transport that pushes registers itself once built (bin/serve.ts).
 */
export interface TaskPushers {
  register (pusher: TaskPusher): void
  /** The pusher of the protocol that has the system connected here, if any (the first registered wins). */
  find (systemUid: string, protocol: DeviceProtocol): TaskPusher | undefined
}

/** Outgoing tasks (core/services/ingest/task-dispatch.ts). */
export interface TaskDispatch {
  /**
   * Delivers the PENDING tasks of these systems now to those connected over a push transport of the protocol, and
   * asks for a connection where requested and the device is not connected. Never throws for one device: a task not
   * delivered now waits for the device's next connection or poll.
   */
  dispatch (requests: readonly DispatchRequest[]): Promise<void>
}

/** Asks a device to connect to the service (docs/devices.md: the SMS shoulder tap). */
export interface ConnectionRequester {
  /** 'sent': the request left; 'failed': the gateway refused or could not be reached; 'unavailable': not configured. */
  request (target: { systemUid: string, mobileNumber: string, protocol: DeviceProtocol }): Promise<'sent' | 'failed' | 'unavailable'>
}

/** Where the answers of devices go (the operations engine), called after the answers are committed. */
export type DeviceAnswers = (answers: readonly DeviceAnswer[]) => Promise<void>

/**
 * One system's tasks to take over one protocol; `again` adds the SENT ones not answered (DeviceTasksRepository.take),
 * except those of `received`: tasks the device confirmed receiving at its transport's level (an MQTT PUBACK).
 */
export interface TakeRequest { systemUid: string, protocol: DeviceProtocol, again?: boolean, received?: readonly string[] }

/** The store of device tasks (storage/repositories/device-tasks.repository.ts). */
export interface DeviceTasksRepository {
  insert (tasks: ReadonlyArray<Omit<DeviceTaskRecord, 'state' | 'sentAt'>>): Promise<void>
  /**
   * The tasks of the system still to deliver over this protocol, oldest first, marked SENT: the PENDING ones and,
   * with `again`, the SENT ones not answered (a reconnection, a poll, a restart: delivered again until answered).
   */
  take (systemUid: string, protocol: DeviceProtocol, now: number, opts?: { again?: boolean }): Promise<DeviceTask[]>
  /**
   * take() for many systems in one statement (a reboot of thousands of devices brings thousands of reconnections,
   * and an operation's chunk pushes to a hundred devices at once). Answers the tasks of each request, in order; two
   * requests for one system and protocol get the same tasks.
   */
  takeMany (requests: readonly TakeRequest[], now: number): Promise<DeviceTask[][]>
  /** Systems with PENDING tasks over this protocol, among these. */
  withPending (systemUids: readonly string[], protocol: DeviceProtocol): Promise<string[]>
  /**
   * The tasks over this protocol SENT before `sentBefore` and not answered, of at most `systems` systems, sent again
   * now (sent_at = now): a push that a killed process took and never sent, or a device that lost it, gets it again.
   */
  takeStale (protocol: DeviceProtocol, sentBefore: number, now: number, systems: number): Promise<Array<{ systemUid: string, tasks: DeviceTask[] }>>
  /** Records the answers to the system's open (PENDING or SENT) tasks; answers those it closed (others are ignored). */
  answer (systemUid: string, acks: ReadonlyArray<{ taskUid: string, status: AnswerStatus, message: string | null }>, now: number): Promise<DeviceAnswer[]>
  /**
   * answer() for many devices in one statement (the acks of a reboot of the fleet arrive together); answers, per
   * request in order, the answers it closed. A task named twice is answered by the first request that names it.
   */
  answerMany (requests: ReadonlyArray<{ systemUid: string, acks: ReadonlyArray<{ taskUid: string, status: AnswerStatus, message: string | null }> }>, now: number): Promise<DeviceAnswer[][]>
  /** Withdraws tasks not delivered yet (PENDING → CANCELLED); answers the uids withdrawn. */
  withdraw (taskUids: readonly string[], now: number): Promise<string[]>
  /**
   * Answers the engine may not have heard: the latest device task of each operation task still open
   * (IN_PROGRESS, BEING_CANCELLED) is answered. The process stopped between committing the ack and telling the engine.
   * `ackedBefore`: only answers acknowledged before then (the periodic sweep leaves the newest to the process that
   * committed them).
   */
  unheard (ackedBefore?: number): Promise<DeviceAnswer[]>
  /** States of these tasks (absent: no such device task). */
  states (taskUids: readonly string[]): Promise<Map<string, DeviceTaskRecord['state']>>
}
