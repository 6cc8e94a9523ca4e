// The LwM2M protocol module (ingest/protocol-module.ts): its transport (CoAP on LWM2M_PORT, CoAP over DTLS on
// LWM2MS_PORT: lwm2m.transport.ts), its service (device lookups and PSKs: lwm2m-devices.ts), its repository
// (lwm2m.repository.ts) and its migrations (migrations/: the registrations).
import type { DeviceProtocolModule } from '../protocol-module.js'
import type { Lwm2mRepository } from './lwm2m.port.js'
import { createLwm2mRepository } from './lwm2m.repository.js'
import { createLwm2mDevices } from './lwm2m-devices.js'
import { lwm2mTransport } from './lwm2m.transport.js'

export const lwm2mModule: DeviceProtocolModule<Lwm2mRepository> = {
  name: 'lwm2m',
  createStore: createLwm2mRepository,
  async transport (deps) {
    const store = createLwm2mRepository(deps.db)
    return await lwm2mTransport(deps, { db: deps.db, store, devices: createLwm2mDevices({ repos: deps.repos, store }) })
  }
}
