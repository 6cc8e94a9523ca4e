import { FleetError } from '../../errors.js'
import type { DataQueriesRepository } from '../../ports/data-queries.js'
import type { CompanyAccess } from '../access.js'

/**
 * Every data and message endpoint reads only systems of the context company (docs/api.md#using-the-api).
 * @throws FleetError system.unknown naming the first system that is not the company's
 */
export async function checkOwnSystems (dataQueries: Pick<DataQueriesRepository, 'systemsOf'>, access: CompanyAccess, uids: string[]): Promise<void> {
  const found = new Set(await dataQueries.systemsOf(access.company.uid, uids))
  const missing = uids.find((u) => !found.has(u))
  if (missing !== undefined) throw new FleetError('system.unknown', [missing])
}
