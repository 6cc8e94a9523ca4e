// AirLink gateways polled over SNMP or AceManager (docs/protocols/msci.md) as
// one device transport (ingest/transport.ts). It listens on nothing: the service goes to the gateways. Its poller is
// the repeatable job `msci.poll`, and its device tasks go out at the gateway's next poll (a gateway with waiting
// tasks is polled at once), so it has no push and no gateway is ever "connected" between polls.
import type { DeviceTransport, TransportDeps } from '../transport.js'
import { acemanagerAccess } from './acemanager-access.js'
import { snmpAccess } from './snmp-access.js'
import { createPoller, TICK_MS, type PollerStats } from './poller.js'
import type { OpenAccess } from './poll.js'
import { createHostGuard } from './host-guard.js'
import type { MsciPolls } from './msci-polls.js'

export const openAccess: OpenAccess = (p, timeoutMs) => p.access === 'snmp' ? snmpAccess(p, timeoutMs) : acemanagerAccess(p, timeoutMs)

export interface MsciTransport extends DeviceTransport {
  /** Polls made by this process (the bench reads it). */
  stats (): PollerStats
}

/** `polls`: the module's service (index.ts builds it over the module's store). */
export function createMsciTransport (deps: TransportDeps, polls: MsciPolls, open: OpenAccess = openAccess): MsciTransport {
  const poller = createPoller({
    polls,
    ingest: deps.ingest,
    open,
    hosts: createHostGuard({ allowed: deps.config.MSCI_ALLOWED_NETWORKS, timeoutMs: deps.config.MSCI_TIMEOUT_MS }),
    timeoutMs: deps.config.MSCI_TIMEOUT_MS,
    concurrency: deps.config.MSCI_POLL_CONCURRENCY,
    now: deps.now,
    log: deps.log,
    metrics: deps.metrics
  })
  return {
    name: 'msci',
    protocols: ['MSCI'],
    connected: () => false,
    connections: () => [{ kind: 'polling', count: poller.running() }],
    jobs: { 'msci.poll': { everyMs: TICK_MS, run: poller.tick } },
    stats: poller.stats,
    close: poller.close
  }
}
