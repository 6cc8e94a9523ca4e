// The alerts through the API (docs/alerts.md#alerts): the context company's alerts and its rules' states per system,
// as AirVantage's v2 answers them (bare arrays), and the acknowledgement of an alert. Another company's alert answers
// alert.unknown exactly as an unknown uid does.
import { FleetError } from '../../errors.js'
import type { Actor } from '../../domain/actor.js'
import { list, page, toMillis } from '../../domain/lists.js'
import type { AlertFilter, AlertStateView, AlertStatus, AlertsRepository, AlertView } from '../../ports/alerts.js'
import type { CompanyAccess } from '../access.js'

type Multi = string | string[] | undefined

export interface AlertsQuery {
  alertId?: Multi
  ruleId?: Multi
  targetId?: Multi
  state?: AlertStatus
  acknowledged?: boolean
  dateAfter?: number
  dateBefore?: number
  offset?: number
  size?: number
}

export interface AlertStatesQuery { ruleId?: Multi, targetId?: Multi, offset?: number, size?: number }

/** @throws invalid.timerange: dateBefore not later than dateAfter (no alert could match both) */
function filterOf (q: AlertsQuery): AlertFilter {
  const dateAfter = q.dateAfter === undefined ? undefined : toMillis(q.dateAfter)
  const dateBefore = q.dateBefore === undefined ? undefined : toMillis(q.dateBefore)
  if (dateAfter !== undefined && dateBefore !== undefined && dateBefore <= dateAfter) {
    throw new FleetError('invalid.timerange', [String(q.dateAfter), String(q.dateBefore), 'dateBefore must be later than dateAfter'])
  }
  return { alertIds: list(q.alertId), ruleIds: list(q.ruleId), targetIds: list(q.targetId), state: q.state, acknowledged: q.acknowledged, dateAfter, dateBefore }
}

/**
 * Who an acknowledgement names: the user's uid (stable, unlike an e-mail a user may change), or the API client's id
 * when the client acts without a user.
 */
const acknowledger = (actor: Actor): string => actor.userUid ?? actor.clientId

export function createAlertsService ({ alerts }: { alerts: AlertsRepository }) {
  return {
    /** The company's alerts passing the filters, newest first, one page (offset/size as every list). @throws invalid.timerange */
    async find (access: CompanyAccess, q: AlertsQuery): Promise<AlertView[]> {
      return await alerts.find(access.company.uid, filterOf(q), page(q.offset, q.size))
    },

    /** One state per rule and system of the company, the latest change first, one page. */
    async states (access: CompanyAccess, q: AlertStatesQuery): Promise<AlertStateView[]> {
      return await alerts.states(access.company.uid, { ruleIds: list(q.ruleId), targetIds: list(q.targetId) }, page(q.offset, q.size))
    },

    /**
     * Marks the alert acknowledged by the caller and answers it; repeated, it changes nothing (the first
     * acknowledger stays). @throws alert.unknown (another company's alert answers the same)
     */
    async acknowledge (access: CompanyAccess, actor: Actor, uid: string): Promise<AlertView> {
      if (!await alerts.acknowledge(access.company.uid, uid, acknowledger(actor))) throw new FleetError('alert.unknown', [uid])
      const [alert] = await alerts.find(access.company.uid, { alertIds: [uid] }, { offset: 0, size: 1 })
      // Deleted with its rule or system between the two statements: as unknown as if it had gone before.
      if (alert === undefined) throw new FleetError('alert.unknown', [uid])
      return alert
    }
  }
}

export type AlertsService = ReturnType<typeof createAlertsService>
