// Which ports a start tries before it opens the store (bin/port-check.ts).
import { createServer, type AddressInfo, type Server } from 'node:net'
import { once } from 'node:events'
import { afterEach, describe, expect, it } from 'vitest'
import { checkPorts } from '../../bin/port-check.js'

const servers: Server[] = []
afterEach(() => { for (const s of servers.splice(0)) s.close() })

async function busyPort (): Promise<number> {
  const s = createServer().listen(0, '127.0.0.1')
  servers.push(s)
  await once(s, 'listening')
  return (s.address() as AddressInfo).port
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
})
