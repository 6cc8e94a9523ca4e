// The hawkBit DDI protocol module (ingest/protocol-module.ts; docs/protocols/ddi.md): Linux gateways running SWUpdate's
// suricatta or RAUC's hawkBit updater install the applications whose update path is HAWKBIT. Its transport (HTTP
// routes under /ddi/), its service (ddi-controller.ts: polls, deployments, feedback), its repository
// (ddi.repository.ts) and its migrations (migrations/: action ids, feedback, the artifacts' SHA-1).
import type { DeviceProtocolModule } from '../protocol-module.js'
import type { DdiRepository } from './ddi.port.js'
import { createDdiRepository } from './ddi.repository.js'
import { ddiTransport } from './ddi.transport.js'

export const ddiModule: DeviceProtocolModule<DdiRepository> = {
  name: 'ddi',
  createStore: createDdiRepository,
  async transport (deps) {
    return await ddiTransport(deps, createDdiRepository(deps.db))
  }
}
