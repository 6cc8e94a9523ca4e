// Token and authorization requests wait for the first start to have created its company.
import { FleetError } from '../../errors.js'
import type { CompaniesRepository } from '../../ports/companies.js'

/**
 * The first start binds its ports before it creates the first company, administrator and client (bin/serve.ts): a
 * token request meanwhile would be refused as if its secret were wrong. Asked until it holds, then never again.
 * @throws FleetError service.unavailable (retry after 1 s) while no company exists
 */
export function firstStartCheck (companies: Pick<CompaniesRepository, 'any'>): () => Promise<void> {
  let started = false
  return async function firstStartDone (): Promise<void> {
    started ||= await companies.any()
    if (!started) {
      throw Object.assign(new FleetError('service.unavailable', [], { message: 'the first start is creating the first company: try again' }), { retryAfterS: 1 })
    }
  }
}
