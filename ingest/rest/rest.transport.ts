// REST devices (docs/devices.md: /device/messages, /device/tasks, /device/acks on the HTTP port) as one
// device transport (ingest/transport.ts). REST devices poll: nothing is pushed, a device is never "connected" to a
// process, and its tasks wait until its next GET /device/tasks.
import type { DeviceTransport, TransportFactory } from '../transport.js'
import { createPipeline } from '../pipeline.js'
import deviceRoutes from './device.routes.js'
import { createDeviceLimits } from '../device-limits.js'

export const restTransport: TransportFactory = async (deps): Promise<DeviceTransport> => {
  const pipeline = createPipeline({ ingest: deps.ingest, now: deps.now, protocol: 'REST' })
  const limits = createDeviceLimits({ config: deps.config, metrics: deps.metrics, now: deps.now, protocol: 'REST' })
  return {
    name: 'rest',
    protocols: ['REST'],
    http: async (app) => { await app.register(deviceRoutes, { devices: deps.devices, ingest: deps.ingest, pipeline, limits }) },
    connected: () => false,
    connections: () => [],
    close: async () => {}
  }
}
