// hawkBit DDI controllers (docs/protocols/ddi.md) as one device transport (ingest/transport.ts): HTTP routes on the
// service's port under /ddi/. Controllers poll: nothing is pushed, a controller is never "connected" to a process, and
// its installs wait for its next poll.
import type { ArtifactStore } from '../../core/ports/artifacts.js'
import type { DeviceTransport } from '../transport.js'
import type { ProtocolDeps } from '../protocol-module.js'
import { createPipeline } from '../pipeline.js'
import { createDeviceLimits } from '../device-limits.js'
import type { DdiRepository } from './ddi.port.js'
import { createArtifactSha1 } from './artifact-sha1.js'
import { createDdiAuth } from './ddi-auth.js'
import { createDdiController } from './ddi-controller.js'
import { createPollSleep } from './poll-sleep.js'
import { createActionPrune } from './action-prune.js'
import ddiRoutes from './ddi.routes.js'

export async function ddiTransport (deps: ProtocolDeps & { artifacts?: Pick<ArtifactStore, 'open'> }, store: DdiRepository): Promise<DeviceTransport> {
  const pipeline = createPipeline({ ingest: deps.ingest, now: deps.now, protocol: 'DDI' })
  const limits = createDeviceLimits({ config: deps.config, metrics: deps.metrics, now: deps.now, protocol: 'DDI' })
  const sha1Of = createArtifactSha1({ store, artifacts: deps.artifacts, now: deps.now })
  const controller = createDdiController({ store, ingest: deps.ingest, sha1Of, now: deps.now })
  const authenticate = createDdiAuth({ devices: deps.devices, companies: deps.repos.companies, defaultCompanyName: deps.config.FLEET_COMPANY_NAME, now: deps.now })
  const pollSleepS = createPollSleep({ applications: deps.repos.applications, now: deps.now })
  return {
    name: 'ddi',
    protocols: ['DDI'],
    http: async (app) => { await app.register(ddiRoutes, { authenticate, controller, pipeline, limits, pollSleepS, publicUrl: deps.config.PUBLIC_URL }) },
    jobs: { 'ddi.prune': createActionPrune({ store, now: deps.now, log: deps.log }) },
    connected: () => false,
    connections: () => [],
    close: async () => {}
  }
}
