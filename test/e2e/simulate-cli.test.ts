// `npx fleet simulate` as a user runs it (simulator/README.md): a child process against a listening stack,
// registering devices through the API and publishing over MQTT, then what it reported is checked through the API.
import { Aedes } from 'aedes'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { runFleet } from '../helpers/child.js'
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

  it('explains a bad command line with the usage and exit code 2', async () => {
    const r = await runFleet(['simulate', '--devices', '3', '--protocol', 'carrier-pigeon'], {})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('fleet simulate: --protocol must be mqtt, rest, m3da or sparkplug')
    expect(r.stderr).toContain('usage: fleet simulate --devices N --protocol mqtt|rest|m3da|sparkplug')
  })
})
