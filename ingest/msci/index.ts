// The MSCI protocol module (ingest/protocol-module.ts): AirLink gateways polled over SNMP or AceManager. Its transport
// (the `msci.poll` job), its service (the claims and outcomes of polls: msci-polls.ts), its repository
// (msci-polls.repository.ts) and its migrations (migrations/: the poll state of each gateway).
import type { DeviceProtocolModule } from '../protocol-module.js'
import type { MsciPollsRepository } from './msci-polls.port.js'
import { createMsciPollsRepository } from './msci-polls.repository.js'
import { createMsciPolls } from './msci-polls.js'
import { createMsciTransport } from './msci.transport.js'

export const msciModule: DeviceProtocolModule<MsciPollsRepository> = {
  name: 'msci',
  createStore: createMsciPollsRepository,
  async transport (deps) {
    return createMsciTransport(deps, createMsciPolls({ repos: deps.repos, store: createMsciPollsRepository(deps.db), clock: { now: deps.now } }))
  }
}
