// The periodic commStatus sweep (docs/devices.md): core/domain/comm-status.ts decides, the store finds the candidates
// and keeps what was decided. Three statements whatever the fleet's size:
// 1. the distinct heartbeats of the systems (a fleet has a handful: one per kind of device), whose delays the domain
//    computes (heartbeatDelays);
// 2. the candidates: communicating systems whose silence has passed a different number of their delays than their
//    stored status stands for (BY_DELAYS_PASSED), with what the domain needs to decide each (sweptCommStatus);
// 3. one write of the changed ones, compare-and-set on the status and the last communication read: a system heard
//    from (or failing) meanwhile keeps what its traffic wrote.
// A fleet at rest (most systems OK and recent, the silent ones already WARNING or ERROR) reads no candidate.
import type { Queryable } from '../../core/ports/store.js'
import type { CommStatusChange } from '../../core/ports/telemetry.js'
import { BY_DELAYS_PASSED, commDelays, sweptCommStatus, type CommDelays } from '../../core/domain/comm-status.js'
import { heartbeatDelays } from '../../core/domain/heartbeat.js'
import { numberArray, textArray } from '../sql-arrays.js'

interface Candidate { uid: string, company_uid: string, comm_status: string, last_comm_date: string, failed_at: unknown, w: string, e: string }

/** The delays of each distinct heartbeat of the systems (its JSON text: the key the candidates join by). */
async function delaysByHeartbeat (q: Queryable, defaultPeriodMs: number): Promise<Map<string, CommDelays>> {
  const { rows } = await q.query<{ heartbeat: string, state: string | null, period: string | null, sla_warning: string | null, sla_error: string | null }>(
    `SELECT h::text AS heartbeat, h ->> 'state' AS state, h #>> '{period}' AS period, h #>> '{sla,warning}' AS sla_warning, h #>> '{sla,error}' AS sla_error
     FROM (SELECT DISTINCT heartbeat AS h FROM systems WHERE heartbeat IS NOT NULL) x`)
  return new Map(rows.map((r) => [r.heartbeat, heartbeatDelays({ state: r.state, period: r.period, slaWarning: r.sla_warning, slaError: r.sla_error }, defaultPeriodMs)]))
}

/**
 * Communicating systems whose stored status may not be the one their silence gives at `now`: their silence has
 * passed a different number of their delays (those of their heartbeat, else `otherwise`) than their status stands for.
 */
async function candidates (q: Queryable, now: number, delays: Map<string, CommDelays>, otherwise: CommDelays): Promise<Candidate[]> {
  const hbs = [...delays.keys()]
  const { rows } = await q.query<Candidate>(
    `SELECT u.uid, u.company_uid, t.comm_status, t.last_comm_date, t.data -> 'lastCommFailureDate' AS failed_at, u.w, u.e
     FROM (SELECT s.uid, s.company_uid, coalesce(d.w, $5) AS w, coalesce(d.e, $6) AS e FROM systems s
           LEFT JOIN unnest($2::jsonb[], $3::int8[], $4::int8[]) AS d(hb, w, e) ON d.hb = s.heartbeat) u
     JOIN system_state t ON t.system_uid = u.uid
     WHERE t.last_comm_date IS NOT NULL
       AND (($1 - t.last_comm_date > u.w)::int + ($1 - t.last_comm_date > u.e)::int + 1) IS DISTINCT FROM array_position($7::text[], t.comm_status)`,
    [now, textArray(hbs), numberArray(hbs.map((k) => delays.get(k)?.warningMs ?? null)), numberArray(hbs.map((k) => delays.get(k)?.errorMs ?? null)),
      otherwise.warningMs, otherwise.errorMs, textArray(BY_DELAYS_PASSED)])
  return rows
}

/** Sets the status the domain decides for every system whose status changes at `now`; answers the changes. */
export async function sweepCommStatus (q: Queryable, now: number, defaultPeriodMs: number): Promise<CommStatusChange[]> {
  const found = await candidates(q, now, await delaysByHeartbeat(q, defaultPeriodMs), commDelays(defaultPeriodMs))
  const changed = found.flatMap((c) => {
    const lastCommDate = Number(c.last_comm_date)
    const lastFailureDate = typeof c.failed_at === 'number' ? c.failed_at : null
    const status = sweptCommStatus({ status: c.comm_status, lastCommDate, lastFailureDate }, now, { warningMs: Number(c.w), errorMs: Number(c.e) })
    return status === c.comm_status ? [] : [{ uid: c.uid, companyUid: c.company_uid, was: c.comm_status, status, lastCommDate }]
  })
  if (changed.length === 0) return []
  const { rows } = await q.query<{ uid: string, comm_status: string }>(
    `UPDATE system_state st SET comm_status = v.status
     FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[]) AS v(uid, status, was, lc)
     WHERE st.system_uid = v.uid AND st.comm_status = v.was AND st.last_comm_date = v.lc
     RETURNING st.system_uid AS uid, st.comm_status`,
    [textArray(changed.map((c) => c.uid)), textArray(changed.map((c) => c.status)), textArray(changed.map((c) => c.was)), numberArray(changed.map((c) => c.lastCommDate))])
  // The store's guard of failed polls (0022_msci_polls.sql) may have kept a status a failure set meanwhile.
  const written = new Map(rows.map((r) => [r.uid, r.comm_status]))
  return changed.filter((c) => written.get(c.uid) === c.status).map(({ uid, companyUid, status, lastCommDate }) => ({ uid, companyUid, status, lastCommDate }))
}
