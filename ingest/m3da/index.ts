// The M3DA protocol module (ingest/protocol-module.ts): its transport (TCP on M3DA_PORT and POST /device/com), its
// service (device lookups, the nonce chain and tickets: m3da-devices.ts), its repository (m3da.repository.ts) and its
// migrations (migrations/: the nonces and tickets of the security extension).
import type { DeviceProtocolModule } from '../protocol-module.js'
import type { M3daRepository } from './m3da.port.js'
import { createM3daRepository } from './m3da.repository.js'
import { createM3daDevices } from './m3da-devices.js'
import { m3daTransport } from './m3da.transport.js'

export const m3daModule: DeviceProtocolModule<M3daRepository> = {
  name: 'm3da',
  createStore: createM3daRepository,
  async transport (deps) {
    return await m3daTransport(deps, createM3daDevices({ repos: deps.repos, store: createM3daRepository(deps.db), clock: { now: deps.now } }))
  }
}
