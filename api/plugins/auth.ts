import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { FleetError } from '../../core/errors.js'
import type { AuthService } from '../../core/services/auth.service.js'
import type { CompaniesRepository } from '../../core/ports/repositories.js'
import type { RateCounter } from '../../core/ports/store.js'
import { enterCompany } from '../../core/services/access.js'
import { sha256 } from '../../core/security/secrets.js'
import '../types.js'

export interface AuthOptions {
  auth: AuthService
  companies: Pick<CompaniesRepository, 'findByUid'>
  rateCounter: RateCounter
  ratePerSecond: number
}

/** docs/api.md#get-a-token: `Authorization: Bearer <t>` or the query parameter `access_token`. */
export function bearerToken (req: FastifyRequest): string | undefined {
  const header = req.headers.authorization
  if (header !== undefined && /^bearer /i.test(header)) return header.slice(7).trim()
  const q = (req.query as Record<string, unknown> | undefined)?.access_token
  return typeof q === 'string' && q !== '' ? q : undefined
}

/**
 * docs/api.md#using-the-api: a fixed window of one second, per token (per address for the token endpoint).
 * The error carries retryAfterS, which the error handler renders as the Retry-After header.
 */
export async function enforceRate (counter: RateCounter, key: string, perSecond: number): Promise<void> {
  const { count, resetMs } = await counter.hit(key, 1000)
  if (count > perSecond) throw Object.assign(new FleetError('rate.limit.exceeded'), { retryAfterS: Math.max(1, Math.ceil(resetMs / 1000)) })
}

/**
 * Authenticates every non-public route, counts it against the token's rate limit, then enters the context
 * company and checks the route's right (order: 401, 429, 400 partner.unknown/company.unknown, 403).
 */
export default fp(async (app: FastifyInstance, opts: AuthOptions) => {
  app.decorateRequest('actor')
  app.decorateRequest('access')

  app.addHook('onRequest', async (req) => {
    const config = req.routeOptions.config
    if (config.public === true || req.routeOptions.url === undefined) return
    const token = bearerToken(req)
    if (token === undefined) throw new FleetError('invalid_token', [], { message: 'an access token is required' })
    await enforceRate(opts.rateCounter, sha256(token), opts.ratePerSecond)
    req.actor = await opts.auth.authenticate(token, req.ip)
  })

  app.addHook('preHandler', async (req) => {
    const config = req.routeOptions.config
    const from = config.context ?? 'query'
    if (config.public === true || from === 'none' || req.routeOptions.url === undefined) return
    const companyUid = from === 'path'
      ? (req.params as Record<string, string>).uid
      : (req.query as Record<string, string | undefined>).company
    req.access = await enterCompany(opts.companies, req.actor, companyUid, {
      right: config.right ?? null,
      unknown: from === 'path' ? 'company.unknown' : 'partner.unknown'
    })
  })
}, { name: 'auth' })
