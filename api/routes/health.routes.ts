// Liveness and readiness for orchestrators and load balancers (docs/monitoring.md). Both are open (no token), outside
// the rate limits (they are not under /api/v1) and never shed (config.shed false).
//   GET /health  the process answers HTTP: 200 {"status":"ok"}.
//   GET /ready   it can serve: every check passes (store answers, migrations applied, device listeners up): 200;
//                otherwise 503 naming the checks that failed, so traffic goes elsewhere until they pass.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import '../types.js'

export interface ReadinessCheck {
  name: string
  /** Resolves true when ready; false or a rejection means not ready. */
  check: () => Promise<boolean>
}

export interface HealthRoutesOptions { checks: readonly ReadinessCheck[] }

// A store that hangs must not hang the probe: a check that takes longer counts as failed.
const CHECK_TIMEOUT_MS = 2000

async function passes (c: ReadinessCheck, log: FastifyBaseLogger): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<boolean>((resolve) => { timer = setTimeout(() => { resolve(false) }, CHECK_TIMEOUT_MS) })
  try {
    return await Promise.race([c.check(), timeout])
  } catch (err) {
    log.warn({ err, check: c.name }, 'readiness check failed')
    return false
  } finally {
    clearTimeout(timer)
  }
}

export default async function healthRoutes (app: FastifyInstance, opts: HealthRoutesOptions): Promise<void> {
  const config = { public: true, shed: false }
  app.get('/health', { config, schema: { hide: true } }, async () => ({ status: 'ok' }))
  app.get('/ready', { config, schema: { hide: true } }, async (req, reply) => {
    const results = await Promise.all(opts.checks.map(async (c) => [c.name, await passes(c, req.log)] as const))
    const checks = Object.fromEntries(results.map(([name, ok]) => [name, ok ? 'ok' : 'failed']))
    const failed = results.filter(([, ok]) => !ok).map(([name]) => name)
    if (failed.length === 0) return { status: 'ok', checks }
    return await reply.status(503).send({ status: 'unavailable', failed, checks })
  })
}
