// What a simulated device needs from its link to the service, whatever the protocol (docs/devices.md).
import type { Ack, Point, Task } from '../../protocols/airvantage/index.js'

export type TasksHandler = (tasks: Task[]) => void

export interface DeviceTransport {
  /** As the service records it on the device message. */
  readonly protocol: 'MQTT' | 'REST' | 'M3DA' | 'SPARKPLUG' | 'DDI' | 'LWM2M'
  /** Sends one data message; resolves once the service acknowledged it (QoS 1 PUBACK, HTTP 200). */
  sendData (points: readonly Point[]): Promise<void>
  /** Sends task acknowledgements; resolves once the service acknowledged them. */
  sendAcks (acks: readonly Ack[]): Promise<void>
  /**
   * Where tasks go: MQTT calls it when the service publishes on `<id>/tasks/json`, REST on each poll, M3DA for the
   * Messages of each reply envelope.
   */
  onTasks (handler: TasksHandler): void
  /** REST: asks GET /device/tasks now. M3DA: an exchange without data (the reply carries them). MQTT: nothing to do (the service pushes). */
  checkTasks (): Promise<void>
  /**
   * A reboot's first half: MQTT closes the connection (after what is in flight is acknowledged); REST has no
   * connection to close (the device stops calling until reconnect()).
   */
  disconnect (): Promise<void>
  /** A reboot's second half: MQTT connects and subscribes to its tasks again (the service then sends what is open). */
  reconnect (): Promise<void>
  /** Bytes of the last request and answer, for the device's link counters. */
  readonly lastTraffic: { sent: number, received: number }
  close (): Promise<void>
}

/** A transport refused by the service, with what it answered (for logs and the progress line). */
export class TransportError extends Error {
  constructor (message: string, readonly status?: number | string) {
    super(message)
    this.name = 'TransportError'
  }
}
