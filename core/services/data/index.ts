// The read side of telemetry: data points and device messages (docs/api.md#systems, data and message rows).
import type { Clock } from '../../ports/store.js'
import type { Repositories } from '../../ports/repositories.js'
import { createPointsService } from './points.service.js'
import { createMessagesService } from './messages.service.js'

export function createDataServices ({ repos, clock }: { repos: Pick<Repositories, 'dataQueries' | 'companies'>, clock: Clock }) {
  const points = createPointsService({ repos, clock })
  return {
    last: points.last,
    raw: points.raw,
    aggregated: points.aggregated,
    fleet: points.fleet,
    messages: createMessagesService({ repos, clock })
  }
}

export type DataServices = ReturnType<typeof createDataServices>
