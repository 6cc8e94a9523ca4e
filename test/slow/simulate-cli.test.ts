// `npx fleet simulate` as a user runs it (simulator/README.md): a child process against a listening stack,
// registering devices through the API and publishing over MQTT, then what it reported is checked through the API.
import { Aedes } from 'aedes'
import { once } from 'node:events'
import { createServer, type AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { runFleet, spawnFleet } from '../helpers/child.js'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../helpers/stack.js'

let stack: Stack
beforeAll(async () => { stack = await startStack({ listen: true }) })
afterAll(async () => { await stack?.close() })

describe('fleet simulate', { timeout: 120_000 }, () => {
  it('registers the devices, publishes for the duration, shows progress and a summary that the store confirms', async () => {
    const r = await runFleet(['simulate', '--devices', '3', '--protocol', 'mqtt', '--mqtt-version', '5', '--rate', '5', '--duration', '2',
      '--url', stack.httpUrl, '--mqtt-url', stack.mqttUrl, '--client-id', CLIENT_ID, '--client-secret', CLIENT_SECRET], {
      FLEET_ADMIN_EMAIL: ADMIN_EMAIL, FLEET_ADMIN_PASSWORD: ADMIN_PASSWORD, HTTP_HOST: '127.0.0.1'
    })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^\[ +\d+s\] (registering|\d+\/3 connected)/m) // the progress line, once a second
    const done = /done \(run (\w+), label sim-\w+\): 3 MQTT devices, (\d+) messages \((\d+) points\) acknowledged .*, 0 tasks answered, 0 errors/.exec(r.stdout)
    expect(done, r.stdout).not.toBeNull()
    const [, run = '', messages = '0'] = done ?? []
    expect(Number(messages)).toBeGreaterThan(3)

    const found = (await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems?labels=sim-${run}&fields=uid,gateway,commStatus` })).json()
    expect(found.count).toBe(3)
    let stored = 0
    for (const s of found.items) {
      expect(s.gateway.serialNumber).toMatch(new RegExp(`^SIM${run.toUpperCase()}\\d{5}$`))
      const res = (await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${s.uid as string}/messages?size=500` })).json()
      stored += res.messages.length
    }
    expect(stored).toBe(Number(messages)) // every acknowledged message is there, and nothing else was sent
    expect(r.stdout).toContain(`verified: ${messages} of ${messages} acknowledged messages stored`)
  })

  it('fails the run when another broker acknowledged the messages and the service stored none of them', async () => {
    // Another MQTT broker, as a Mosquitto on 1883 would be: it acknowledges every QoS 1 message and stores nothing.
    const broker = await Aedes.createBroker()
    const server = createServer((socket) => { broker.handle(socket) }).listen(0, '127.0.0.1')
    await once(server, 'listening')
    onTestFinished(async () => {
      server.close()
      await new Promise<void>((resolve) => { broker.close(() => { resolve() }) })
    })
    const address = server.address()
    const other = `mqtt://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`
    const r = await runFleet(['simulate', '--devices', '2', '--protocol', 'mqtt', '--rate', '5', '--duration', '1',
      '--url', stack.httpUrl, '--mqtt-url', other, '--client-id', CLIENT_ID, '--client-secret', CLIENT_SECRET], {
      FLEET_ADMIN_EMAIL: ADMIN_EMAIL, FLEET_ADMIN_PASSWORD: ADMIN_PASSWORD, HTTP_HOST: '127.0.0.1'
    })
    const acked = Number(/(\d+) messages \(\d+ points\) acknowledged/.exec(r.stdout)?.[1] ?? '0')
    expect(acked, r.stdout).toBeGreaterThan(0)
    expect(r.stdout).toContain(`verification failed: the service at ${stack.httpUrl} stored 0 of ${acked} acknowledged messages; ` +
      `the broker at ${other} that acknowledged them is probably not this service's (another MQTT broker on that port?): point --mqtt-url at the service (its MQTT_PORT)`)
    expect(r.stdout).not.toContain('verified:')
    expect(r.code).toBe(1)
  })

  it('reports the first device a broker refuses as it happens, while the others are still connecting', async () => {
    // Another broker that refuses the first login (CONNACK 5, not authorized) and never answers the next ones: their
    // connect timeout ends the run, and the refusal must be on the screen before that.
    let logins = 0
    const server = createServer((socket) => {
      socket.once('data', () => { if (++logins === 1) socket.end(Buffer.from([0x20, 0x02, 0x00, 0x05])) })
      socket.on('error', () => {})
    }).listen(0, '127.0.0.1')
    await once(server, 'listening')
    onTestFinished(() => { server.close() })
    const other = `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`
    const child = spawnFleet(['simulate', '--devices', '4', '--protocol', 'mqtt', '--duration', '60',
      '--url', stack.httpUrl, '--mqtt-url', other, '--client-id', CLIENT_ID, '--client-secret', CLIENT_SECRET], {
      FLEET_ADMIN_EMAIL: ADMIN_EMAIL, FLEET_ADMIN_PASSWORD: ADMIN_PASSWORD, HTTP_HOST: '127.0.0.1'
    })
    const line = await child.waitForLine(/^simulate: a device failed to start/)
    expect(child.proc.exitCode).toBeNull() // the run has not ended: the other devices still wait for their CONNACK
    expect(line).toMatch(new RegExp(`^simulate: a device failed to start, the run stops: mqtt connect as SIM\\w+: .*Not authorized.*: is ${other} this service's MQTT \\(its MQTT_PORT; --mqtt-url\\)\\?$`))
    expect(await child.exited()).toMatchObject({ code: 1 })
  })

  it('explains a bad command line with the usage and exit code 2', async () => {
    const r = await runFleet(['simulate', '--devices', '3', '--protocol', 'carrier-pigeon'], {})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('fleet simulate: --protocol must be mqtt, rest, m3da, sparkplug or lwm2m, or ddi')
    expect(r.stderr).toContain('usage: fleet simulate --devices N --protocol mqtt|rest|m3da|sparkplug|ddi|lwm2m')
  })

  it('says a negative device count must be a positive integer, and where the client secret comes from', async () => {
    const negative = await runFleet(['simulate', '--devices', '-3', '--protocol', 'mqtt', '--client-secret', 's'], {})
    expect(negative.code).toBe(2)
    expect(negative.stderr).toContain('fleet simulate: --devices must be a positive integer, got "-3"')
    const noSecret = await runFleet(['simulate', '--devices', '1', '--protocol', 'mqtt'], {})
    expect(noSecret.code).toBe(2)
    expect(noSecret.stderr).toContain('set FLEET_CLIENT_SECRET or pass --client-secret')
  })
})
