// The TLS ports a start tries before it opens the store (bin/port-check.ts), and the plain ones switched off.
import { createServer, type AddressInfo, type Server } from 'node:net'
import { once } from 'node:events'
import { afterEach, describe, expect, it } from 'vitest'
import { checkPorts } from '../../../bin/port-check.js'

const servers: Server[] = []
afterEach(() => { for (const s of servers.splice(0)) s.close() })

async function busyPort (): Promise<number> {
  const s = createServer().listen(0, '127.0.0.1')
  servers.push(s)
  await once(s, 'listening')
  return (s.address() as AddressInfo).port
}

const base = { HTTP_HOST: '127.0.0.1', HTTP_PORT: 0, MQTT_PORT: 0, M3DA_PORT: 0, HTTPS_PORT: 0, MQTTS_PORT: 0, MQTT_URL: undefined, FLEET_ROLES: ['api', 'ingest', 'worker'] } as const
const tls = { TLS_CERT_FILE: '/etc/fleet/server.pem', TLS_KEY_FILE: '/etc/fleet/server-key.pem' }

describe('checkPorts with TLS listeners', () => {
  it('refuses a busy HTTPS_PORT or MQTTS_PORT, naming the variable', async () => {
    await expect(checkPorts({ ...base, ...tls, HTTPS_PORT: await busyPort() })).rejects.toThrow(/^HTTPS_PORT \d+ is already in use/)
    await expect(checkPorts({ ...base, ...tls, MQTTS_PORT: await busyPort() })).rejects.toThrow(/^MQTTS_PORT \d+ is already in use/)
  })

  it('leaves the TLS ports alone without TLS files, MQTTS_PORT with an external broker, and the plain ports switched off', async () => {
    await expect(checkPorts({ ...base, HTTPS_PORT: await busyPort(), MQTTS_PORT: await busyPort() })).resolves.toBeUndefined()
    await expect(checkPorts({ ...base, ...tls, MQTTS_PORT: await busyPort(), MQTT_URL: 'mqtt://fleet:pw@127.0.0.1:1883' })).resolves.toBeUndefined()
    await expect(checkPorts({ ...base, ...tls, HTTP_PORT: 'off', MQTT_PORT: 'off' })).resolves.toBeUndefined()
  })
})
