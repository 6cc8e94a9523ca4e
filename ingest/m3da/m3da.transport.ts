// M3DA devices (docs/protocols/m3da.md) as one device transport
// (ingest/transport.ts): TCP on M3DA_PORT and POST /device/com on the HTTP port, both answered by one session
// handler. M3DA is device-initiated (§2.5: the server speaks only in replies): a task "pushed" to a device in session
// on a TCP connection here goes in the reply to its next envelope; others wait for the device's next session (a
// connection request, requestConnection or wake-up, goes by SMS).
import type { DeviceTransport, TransportDeps } from '../transport.js'
import { createPipeline } from '../pipeline.js'
import { createSessionHandler } from './session.js'
import { createM3daTcpServer } from './tcp.js'
import { proxyProtocolOptions } from '../proxy-protocol.js'
import m3daComRoutes from './com.routes.js'
import { createDeviceLimits } from '../device-limits.js'
import { createLoginGate } from '../login-gate.js'
import type { M3daDevices } from './m3da-devices.js'

export interface M3daTransport extends DeviceTransport {
  /** Writes the nonces not written yet (they are written behind: m3da-devices.ts). */
  flush (): Promise<void>
}

/** `m3da`: the module's service (index.ts builds it over the module's store). */
export async function m3daTransport (deps: TransportDeps, m3da: M3daDevices): Promise<M3daTransport> {
  const pipeline = createPipeline({ ingest: deps.ingest, now: deps.now, protocol: 'M3DA' })
  const handler = createSessionHandler({ devices: deps.devices, m3da, ingest: deps.ingest, pipeline, serverId: deps.config.M3DA_SERVER_ID, log: deps.log, limits: createDeviceLimits({ config: deps.config, metrics: deps.metrics, now: deps.now, protocol: 'M3DA' }) })
  const gate = createLoginGate({ transport: 'm3da', perAddress: deps.config.UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS, timeoutMs: deps.config.M3DA_LOGIN_TIMEOUT_MS, metrics: deps.metrics })
  const tcp = createM3daTcpServer(handler, deps.log, gate, proxyProtocolOptions(deps.config, 'm3da', deps.metrics, deps.log))
  return {
    name: 'm3da',
    protocols: ['M3DA'],
    http: async (app) => { await app.register(m3daComRoutes, { handler }) },
    listeners: [{ name: 'm3da', variable: 'M3DA_PORT', listen: tcp.listen, listening: tcp.listening }],
    connected: (systemUid) => tcp.connected(systemUid),
    push: async (systemUid, tasks) => tcp.push(systemUid, tasks),
    connections: () => [{ kind: 'tcp', count: tcp.connections() }],
    flush: m3da.flush,
    async close () {
      await tcp.close()
      await m3da.flush()
    }
  }
}
