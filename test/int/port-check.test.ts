// Which ports a start tries before it opens the store (bin/port-check.ts).
import { createSocket, type Socket } from 'node:dgram'
import { createServer, type AddressInfo, type Server } from 'node:net'
import { once } from 'node:events'
import { afterEach, describe, expect, it } from 'vitest'
import { checkPorts } from '../../bin/port-check.js'

const servers: Server[] = []
const sockets: Socket[] = []
afterEach(() => {
  for (const s of servers.splice(0)) s.close()
  for (const s of sockets.splice(0)) s.close()
})

async function busyPort (): Promise<number> {
  const s = createServer().listen(0, '127.0.0.1')
  servers.push(s)
  await once(s, 'listening')
  return (s.address() as AddressInfo).port
}

/** A UDP port held by another socket (another LwM2M server on 5683). */
async function busyUdpPort (): Promise<number> {
  const s = createSocket('udp4')
  sockets.push(s)
  s.bind(0, '127.0.0.1')
  await once(s, 'listening')
  return s.address().port
}

/** A UDP port nothing holds (one the system just gave, then closed). */
async function freeUdpPort (): Promise<number> {
  const port = await busyUdpPort()
  await new Promise<void>((resolve) => { sockets.pop()?.close(() => { resolve() }) })
  return port
}

const base = { HTTP_HOST: '127.0.0.1', HTTP_PORT: 0, M3DA_PORT: 0, MQTT_URL: undefined, FLEET_ROLES: ['api', 'ingest', 'worker'] } as const

describe('checkPorts', () => {
  it('refuses a busy MQTT_PORT of an ingest process on the embedded broker, naming the variable', async () => {
    await expect(checkPorts({ ...base, MQTT_PORT: await busyPort() })).rejects.toThrow(/MQTT_PORT/)
  })

  it('leaves MQTT_PORT alone with MQTT_URL: the devices connect to that broker, which may well be on it', async () => {
    await expect(checkPorts({ ...base, MQTT_PORT: await busyPort(), MQTT_URL: 'mqtt://fleet:pw@127.0.0.1:1883' })).resolves.toBeUndefined()
  })

  it('leaves the device ports alone in a process without the ingest role', async () => {
    await expect(checkPorts({ ...base, FLEET_ROLES: ['worker'], MQTT_PORT: await busyPort() })).resolves.toBeUndefined()
  })

  it('refuses a busy LWM2M_PORT or LWM2MS_PORT (UDP) of an ingest process, with the other ports\' sentence', async () => {
    const plain = await busyUdpPort()
    await expect(checkPorts({ ...base, MQTT_PORT: 0, LWM2M_PORT: plain })).rejects.toThrow(`LWM2M_PORT ${plain} is already in use (another service, or this one started twice): set LWM2M_PORT to a free port`)
    const secure = await busyUdpPort()
    await expect(checkPorts({ ...base, MQTT_PORT: 0, LWM2MS_PORT: secure })).rejects.toThrow(new RegExp(`^LWM2MS_PORT ${secure} is already in use`))
    // Both given one port: the second is found busy, by the first.
    const free = await freeUdpPort()
    await expect(checkPorts({ ...base, MQTT_PORT: 0, LWM2M_PORT: free, LWM2MS_PORT: free })).rejects.toThrow(/^LWM2MS_PORT \d+ is already in use/)
  })

  it('frees the UDP ports it tried, does not try port 0, and leaves them alone without the ingest role', async () => {
    const free = await freeUdpPort()
    await expect(checkPorts({ ...base, MQTT_PORT: 0, LWM2M_PORT: free, LWM2MS_PORT: 0 })).resolves.toBeUndefined()
    // Freed: a socket binds the port at once after the check, as the listener will.
    const after = createSocket('udp4')
    sockets.push(after)
    after.bind({ port: free, address: '127.0.0.1', exclusive: true })
    await once(after, 'listening')
    await expect(checkPorts({ ...base, MQTT_PORT: 0, FLEET_ROLES: ['api', 'worker'], LWM2M_PORT: await busyUdpPort(), LWM2MS_PORT: await busyUdpPort() })).resolves.toBeUndefined()
  })
})
