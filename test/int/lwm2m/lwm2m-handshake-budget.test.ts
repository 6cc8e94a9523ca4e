// The handshakes per address of LWM2MS_PORT (docs/protocols/lwm2m.md#handshakes-per-address) through the service:
// LWM2MS_HANDSHAKES_PER_S and LWM2MS_HANDSHAKE_BURST reach its DTLS server, a handshake of an address over its budget
// is refused and counted among the LwM2M refusals (fleet_ingest_messages_refused_total), and a device at another
// address (a second loopback one) still handshakes and registers. The service's clock stands still, so the budget
// refills only when the test says.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { CoapCode, CoapEndpoint } from '../../../protocols/coap/index.js'
import { connectDtls } from '../../../protocols/dtls/index.js'
import { eventually, refusedCount } from '../../helpers/devices.js'
import { metricValue } from '../../helpers/raw-mqtt.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { defaultObjects, TestDevice } from './lwm2m-device.js'
import { lwm2mApplication, lwm2mSystem, type Lwm2mSystem } from './lwm2m-fixtures.js'

let stack: Stack
let secured: string
const now = Date.now()
beforeAll(async () => {
  stack = await startStack({ listen: true, clock: { now: () => now }, env: { LWM2MS_HANDSHAKES_PER_S: '1', LWM2MS_HANDSHAKE_BURST: '1' } })
  secured = await lwm2mApplication(stack, { security: 'psk' })
}, 120_000)
afterAll(async () => { await stack?.close() })

/** A device over our DTLS client sending from `localAddress`. */
async function deviceAt (localAddress: string, s: Lwm2mSystem, handshakeTimeoutMs = 10_000): Promise<TestDevice> {
  const client = await connectDtls({ host: '127.0.0.1', port: stack.ports.lwm2ms ?? 0, identity: s.serial, psk: s.psk as Buffer, localAddress, handshakeTimeoutMs })
  const at: { device?: TestDevice } = {}
  const endpoint = new CoapEndpoint({
    send: (_peer, datagram) => { client.send(datagram) },
    handler: (req) => at.device?.handle(req) ?? { code: CoapCode.ServiceUnavailable }
  })
  client.on('message', (m: Buffer) => { endpoint.receive('server', m) })
  at.device = new TestDevice(endpoint, 'server', defaultObjects(), async () => { endpoint.close(); await client.close() })
  onTestFinished(async () => { await at.device?.close() })
  return at.device
}

describe('LwM2M handshakes per address', () => {
  it('refuses and counts a second handshake from one address while a device at another registers', async () => {
    const [one, two, other] = [
      await lwm2mSystem(stack, { applications: [secured], psk: true }),
      await lwm2mSystem(stack, { applications: [secured], psk: true }),
      await lwm2mSystem(stack, { applications: [secured], psk: true })
    ]
    const first = await deviceAt('127.0.0.1', one)
    expect((await first.register([`ep=${one.serial}`])).code).toBe(CoapCode.Created)

    // The burst of 1 is spent: the next handshake from 127.0.0.1 gets no answer, whoever's key it holds.
    const over = deviceAt('127.0.0.1', two, 3000)
    await eventually(() => refusedCount(stack, 'LWM2M:dtls.handshake.rate.limited') >= 1, 10_000, 'the refusal counted')
    expect(await metricValue(stack, 'fleet_ingest_messages_refused_total', { protocol: 'LWM2M', reason: 'dtls.handshake.rate.limited' })).toBeGreaterThanOrEqual(1)

    const elsewhere = await deviceAt('127.0.0.2', other)
    expect((await elsewhere.register([`ep=${other.serial}`])).code).toBe(CoapCode.Created)
    // The clock stands still: the refused device never gets its handshake (its client gives up at its deadline).
    await expect(over).rejects.toMatchObject({ code: 'dtls.handshake.timeout' })
  })
})
