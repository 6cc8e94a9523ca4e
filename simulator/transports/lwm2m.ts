// A simulated LwM2M device (simulator/README.md "LwM2M devices"; docs/protocols/lwm2m.md) behind the
// simulator's DeviceTransport. LwM2M is server-driven: the server reads, writes, executes and observes the device's
// objects, so there are no tasks to hand over and no acks to send. A data message of the device model moves the
// values it has an object for (RSSI 4/0/2, link quality 4/0/3, position 6/0, battery 3/0/9) and notifies the
// server's observations of them: it counts as acknowledged once those CON notifications are (at once when nothing
// observes them, or while a queue-mode device sleeps: they wait for its next update). A poll is a registration update
// in queue mode (the device wakes) and nothing otherwise (the lifetime timer sends the updates).
import type { Point } from '../../protocols/airvantage/index.js'
import type { LwM2mPath } from '../../protocols/lwm2m/index.js'
import { createLwm2mClient, type Lwm2mClient } from './lwm2m-client.js'
import type { Lwm2mDeviceState } from './lwm2m-device-objects.js'
import type { Lwm2mDeviceOptions } from './lwm2m-options.js'
import type { DeviceTransport } from './transport.js'

export interface Lwm2mDevice extends DeviceTransport {
  readonly protocol: 'LWM2M'
  readonly client: Lwm2mClient
}

/** Battery drained per data message (%), so that 3/0/9 moves slowly over a run. */
const BATTERY_PER_MESSAGE = 0.05

/** The device model's points applied to the objects' state; answers the paths whose values changed. */
export function applyPoints (s: Lwm2mDeviceState, points: readonly Point[]): LwM2mPath[] {
  const changed: LwM2mPath[] = []
  let moved = false
  for (const p of points) {
    if (typeof p.value !== 'number') continue
    if (p.dataId === '_RSSI' && Math.round(p.value) !== Math.round(s.rssi)) { s.rssi = p.value; changed.push({ objectId: 4, instanceId: 0, resourceId: 2 }) }
    if (p.dataId === '_SIGNAL_BARS' && p.value * 20 !== s.linkQuality) { s.linkQuality = p.value * 20; changed.push({ objectId: 4, instanceId: 0, resourceId: 3 }) }
    if (p.dataId === '_LATITUDE' && p.value !== s.latitude) { s.latitude = p.value; s.locationTime = new Date(p.ts); moved = true }
    if (p.dataId === '_LONGITUDE' && p.value !== s.longitude) { s.longitude = p.value; s.locationTime = new Date(p.ts); moved = true }
  }
  if (moved) changed.push({ objectId: 6, instanceId: 0 })
  const before = Math.round(s.battery)
  s.battery = Math.max(0, s.battery - BATTERY_PER_MESSAGE)
  if (Math.round(s.battery) !== before) changed.push({ objectId: 3, instanceId: 0, resourceId: 9 })
  return changed
}

/** Starts the client: the link opened (DTLS handshake when secured) and registered. @throws TransportError, DtlsError */
export async function connectLwm2mDevice (opts: Lwm2mDeviceOptions): Promise<Lwm2mDevice> {
  const client = createLwm2mClient(opts)
  await client.start()
  return {
    protocol: 'LWM2M',
    client,
    async sendData (points) { await client.changed(applyPoints(client.state, points)) },
    async sendAcks () {},
    onTasks () {},
    async checkTasks () { if (opts.queue === true) await client.update() },
    // No task reaches an LwM2M device (its reboot is Execute 3/0/4, handled by the client itself).
    async disconnect () {},
    async reconnect () {},
    lastTraffic: { sent: 0, received: 0 },
    async close () { await client.stop() }
  }
}
