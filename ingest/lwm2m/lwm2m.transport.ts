// LwM2M devices (docs/protocols/lwm2m.md) as one device transport (ingest/transport.ts): CoAP on LWM2M_PORT (NoSec)
// and CoAP over DTLS with a PSK on LWM2MS_PORT, the registration interface answered by the registrar, the reporting
// that observes what the application names, the device tasks as Read, Write and Execute, the installs through
// Objects 5 and 9, and the lwm2m.expire and lwm2m.installs.prune jobs.
import type { DeviceTransport, TransportDeps } from '../transport.js'
import { createPipeline } from '../pipeline.js'
import { createDeviceLimits } from '../device-limits.js'
import { markCommFailures } from '../comm-failures.sql.js'
import type { Queryable } from '../../core/ports/store.js'
import type { CoapCounters } from '../../protocols/coap/index.js'
import type { Lwm2mRepository } from './lwm2m.port.js'
import type { Lwm2mDevices } from './lwm2m-devices.js'
import { createLiveRegistrations, type LiveRegistration } from './live.js'
import { createRegistrar } from './registration.js'
import { createReporting } from './reporting.js'
import { createTaskDelivery } from './tasks.js'
import { createInstalls } from './installs.js'
import { createInstallPrune } from './install-prune.js'
import { createCoapListeners } from './coap-listeners.js'
import { createExpiry } from './expiry.js'

/** How long one request to a device may take before its task fails (ms): above CoAP's MAX_TRANSMIT_WAIT would be 93 s. */
const REQUEST_TIMEOUT_MS = 30_000

export interface Lwm2mTransport extends DeviceTransport {
  /** The CoAP endpoints' counters (malformed datagrams, refusals), plain then DTLS. */
  coapCounters (): { udp: CoapCounters | undefined, dtls: CoapCounters }
  /** Registrations held by this process. */
  registrations (): number
}

export interface Lwm2mParts { db: Queryable, store: Lwm2mRepository, devices: Lwm2mDevices }

export async function lwm2mTransport (deps: TransportDeps, parts: Lwm2mParts): Promise<Lwm2mTransport> {
  const { store, devices } = parts
  const pipeline = createPipeline({ ingest: deps.ingest, now: deps.now, protocol: 'LWM2M' })
  const limits = createDeviceLimits({ config: deps.config, metrics: deps.metrics, now: deps.now, protocol: 'LWM2M' })
  const live = createLiveRegistrations(deps.now)
  const reporting = createReporting({ pipeline, limits, log: deps.log, timeoutMs: REQUEST_TIMEOUT_MS })
  const installs = createInstalls({ ingest: deps.ingest, store, live, log: deps.log, now: deps.now, timeoutMs: REQUEST_TIMEOUT_MS })
  const tasks = createTaskDelivery({ ingest: deps.ingest, reporting, installs, log: deps.log, timeoutMs: REQUEST_TIMEOUT_MS })

  /** Register and Update are traffic (a task take sets lastCommDate and commStatus OK), then the queued tasks go. */
  async function contact (r: LiveRegistration, fresh: boolean): Promise<void> {
    const queued = await deps.ingest.takeTasks(r.session.systemUid, 'LWM2M', { again: true })
    if (fresh) await reporting.observeAll(r)
    await tasks.deliver(r, queued, { atContact: true })
  }

  const registrar = createRegistrar({
    devices,
    store,
    live,
    pipeline,
    limits,
    now: deps.now,
    log: deps.log,
    onContact: (r, fresh) => { contact(r, fresh).catch((err: unknown) => { deps.log.warn({ err, systemUid: r.session.systemUid }, 'LwM2M device not served after its registration') }) }
  })
  const listeners = createCoapListeners({
    handle: registrar.handle,
    pskFor: devices.pskFor,
    refused: (reason) => { pipeline.refuse(reason) },
    lost: live.lost,
    config: deps.config,
    now: deps.now
  })

  return {
    name: 'lwm2m',
    protocols: ['LWM2M'],
    listeners: [
      { name: 'lwm2m', variable: 'LWM2M_PORT', listen: listeners.udp.listen, listening: listeners.udp.listening },
      { name: 'lwm2ms', variable: 'LWM2MS_PORT', listen: listeners.dtls.listen, listening: listeners.dtls.listening }
    ],
    connected: (systemUid) => live.reachable(systemUid),
    async push (systemUid, queued) {
      const r = live.get(systemUid)
      if (r === undefined || !live.reachable(systemUid)) return false
      tasks.deliver(r, queued, { atContact: false }).catch(() => {}) // deliver logs its own failures
      return true
    },
    connections: () => [{ kind: 'udp', count: live.count('udp') }, { kind: 'dtls', count: live.count('dtls') }],
    jobs: {
      'lwm2m.expire': createExpiry({
        store,
        live,
        now: deps.now,
        log: deps.log,
        missed: async (systems) => { await markCommFailures(parts.db, systems.map((s) => ({ systemUid: s.systemUid, status: 'WARNING', at: s.at }))) }
      }),
      'lwm2m.installs.prune': createInstallPrune({ store, log: deps.log })
    },
    coapCounters: () => ({ udp: listeners.udp.counters(), dtls: listeners.dtls.counters() }),
    registrations: () => live.size(),
    async close () {
      live.clear()
      await listeners.udp.close()
      await listeners.dtls.close()
    }
  }
}
