// A systems row as the reads load it (one statement, its parts included), and the System it makes.
import type { System } from '../../../core/domain/system.js'
import { initialSystemData } from '../../../core/domain/system-data.js'
import { toGateway, type GatewayRow } from '../gateways.repository.js'
import { toSubscription, type SubscriptionRow } from '../subscriptions.repository.js'
import { NEVER_COMMUNICATED } from '../../../core/domain/comm-status.js'

export interface Row {
  uid: string
  company_uid: string
  name: string
  type: string | null
  life_cycle_state: System['lifeCycleState']
  state: System['state']
  activity_state: System['activityState']
  creation_date: number
  activation_date: number | null
  last_state_change_date: number
  last_comm_date: number | null
  comm_status: System['commStatus']
  last_sync_date: number | null
  sync_status: string
  labels: string[]
  metadata: Record<string, string>
  communication: System['communication']
  data: Record<string, unknown> | null
  heartbeat: unknown
  status_report: unknown
  reports: unknown[]
  last_applied_template: string | null
  last_config_name: string | null
  month_bytes_total: number
  month_bytes_time: number | null
  usage_status: string
  gw: GatewayRow | null
  sub: SubscriptionRow | null
  offer: { uid: string, company_uid: string, name: string, limit_bytes: number | null, types: string[] } | null
  apps: System['applications'] | null
}

// One statement loads a page of systems with their parts (no N+1): gateway, subscription and offer as JSON
// objects, applications aggregated per system. json rather than jsonb: it is only sent, never queried, and
// skipping the binary form is cheaper.
// The state device traffic changes (lastCommDate, commStatus, System data) is the row of system_state
// (storage/migrations/0024_system_state.sql); a system without one has never communicated.
export const SELECT = `SELECT s.*, st.last_comm_date, coalesce(st.comm_status, '${NEVER_COMMUNICATED}') AS comm_status, st.data,
  row_to_json(g) AS gw, row_to_json(b) AS sub, row_to_json(o) AS offer,
  (SELECT json_agg(json_build_object('uid', a.uid, 'name', a.name, 'revision', a.revision, 'type', a.type,
     'category', a.category) ORDER BY a.type, a.name)
   FROM system_applications sa JOIN applications a ON a.uid = sa.application_uid WHERE sa.system_uid = s.uid) AS apps
FROM systems s LEFT JOIN system_state st ON st.system_uid = s.uid
  LEFT JOIN gateways g ON g.uid = s.gateway_uid LEFT JOIN subscriptions b ON b.uid = s.subscription_uid
  LEFT JOIN offers o ON o.uid = s.offer_uid`

export function toSystem (r: Row): System {
  return {
    uid: r.uid,
    companyUid: r.company_uid,
    name: r.name,
    type: r.type,
    lifeCycleState: r.life_cycle_state,
    state: r.state,
    activityState: r.activity_state,
    creationDate: Number(r.creation_date),
    activationDate: r.activation_date === null ? null : Number(r.activation_date),
    lastStateChangeDate: Number(r.last_state_change_date),
    lastCommDate: r.last_comm_date === null ? null : Number(r.last_comm_date),
    commStatus: r.comm_status,
    lastSyncDate: r.last_sync_date === null ? null : Number(r.last_sync_date),
    syncStatus: r.sync_status,
    labels: r.labels,
    gateway: r.gw === null ? null : toGateway(r.gw),
    subscription: r.sub === null ? null : toSubscription(r.sub),
    applications: r.apps ?? [],
    metadata: r.metadata,
    communication: r.communication,
    // Every field of System data, those never written (a system created behind the repositories' back) as at creation.
    data: { ...initialSystemData(), ...(r.data ?? {}), ...(r.last_applied_template === null ? {} : { lastTemplateName: r.last_applied_template }) },
    heartbeat: r.heartbeat,
    statusReport: r.status_report,
    reports: r.reports,
    offer: r.offer === null
      ? null
      : { uid: r.offer.uid, companyUid: r.offer.company_uid, name: r.offer.name, limit: r.offer.limit_bytes === null ? null : Number(r.offer.limit_bytes), types: r.offer.types },
    lastAppliedTemplate: r.last_applied_template,
    lastConfigName: r.last_config_name,
    monthBytesTotal: Number(r.month_bytes_total),
    monthBytesTime: r.month_bytes_time === null ? null : Number(r.month_bytes_time),
    usageStatus: r.usage_status
  }
}
