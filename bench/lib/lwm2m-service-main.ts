// Entry of bench lwm2m's service process (bench/lib/lwm2m-service.ts; not run on its own): the service as bin/serve.ts
// assembles it, every listener on an ephemeral port of loopback (LwM2M's two among them: no clash with a service or a
// broker already on 5683, 5684 or 1883). Phase `seed` creates the store and seeds the LwM2M systems
// (lwm2m-seed.ts), then ends, so that the service's memory is what serving needs (the embedded store keeps what a
// bulk seed grew); phase `serve` starts the service on that store. Answers over IPC (ipc-rpc.ts): `query` (the store,
// which on PGlite only this process can open), `coap` (the LwM2M endpoints' counters), `close`.
import { fileURLToPath } from 'node:url'
import { pino } from 'pino'
import { buildState } from '../../bin/launch.mjs'
import type { Lwm2mTransport } from '../../ingest/lwm2m/lwm2m.transport.js'
import { sendEvent, serveRpc } from './ipc-rpc.js'
import { seedLwm2mDevices } from './lwm2m-seed.js'
import { benchConfig } from './service.js'

export interface Lwm2mServiceInput {
  phase: 'seed' | 'serve'
  dataDir: string
  databaseUrl: string | undefined
  env: Record<string, string>
  devices: number
}

const input = JSON.parse(process.argv[2] ?? '{}') as Lwm2mServiceInput
// The code `npm start` runs: the build when it is current (BENCH_SERVICE_CODE=build|source chooses instead), as
// bench/lib/service-main.ts does: through tsx the same service holds some 150 MiB more.
const root = fileURLToPath(new URL('../../', import.meta.url))
const state = buildState(root)
const choice = process.env.BENCH_SERVICE_CODE
const built = choice === 'build' || (choice !== 'source' && state.build === 'current')
if (input.phase === 'serve') console.error(`   service code: ${built ? 'the build, dist/' : `TypeScript through tsx${state.build === 'current' ? '' : ` (${state.why ?? ''}; npm run build)`}`}`)
const { openInfra } = await import(built ? `${root}dist/bin/context.js` : '../../bin/context.js') as typeof import('../../bin/context.js')
const { assembleService } = await import(built ? `${root}dist/bin/serve.js` : '../../bin/serve.js') as typeof import('../../bin/serve.js')

const config = benchConfig(input.dataDir, input.databaseUrl, input.env)
// BENCH_LOG_LEVEL (silent): the service's log on stderr, e.g. warn to see what went wrong during a run.
const log = pino({ level: process.env.BENCH_LOG_LEVEL ?? 'silent' }, pino.destination(2))
const infra = await openInfra(config, log)
const service = await assembleService(config, log, infra)
const companyUid = (await infra.db.query<{ uid: string }>('SELECT uid FROM companies LIMIT 1')).rows[0]?.uid ?? ''

if (input.phase === 'seed') {
  const t0 = performance.now()
  await seedLwm2mDevices(infra.db, companyUid, input.devices)
  await service.close()
  process.send?.({ event: 'seeded', seconds: (performance.now() - t0) / 1000 }, () => { process.exit(0) })
} else {
  const { httpPort, ports } = await service.listen({ anyPort: true, host: '127.0.0.1' })
  const lwm2m = service.transports.find((t) => t.name === 'lwm2m') as Lwm2mTransport | undefined
  let closing = false
  serveRpc('bench/lib/lwm2m-service-main.ts', {
    query: async (q: { sql: string, params?: unknown[] }) => (await infra.db.query(q.sql, q.params)).rows,
    coap: async () => ({ ...lwm2m?.coapCounters(), registrations: lwm2m?.registrations() ?? 0 }),
    close: async () => {
      if (closing) return
      closing = true
      await service.close()
    }
  })
  sendEvent({ event: 'listening', httpPort: httpPort ?? 0, ports, companyUid })
}
