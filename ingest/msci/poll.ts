// One poll of one AirLink gateway (docs/protocols/msci.md): read the ids of the MSCI table over
// its access path, store them as one device message (protocol MSCI), then run the system's waiting MSCI tasks over
// the same conversation. The poll fails when the gateway does not answer, refuses the credentials or answers
// garbage (counted); its configuration failing is a failed poll too. Nothing here throws.
import type { DataPoint, DeviceMessage } from '../../core/domain/device-message.js'
import type { IngestService } from '../../core/services/ingest/ingest.service.js'
import type { PollTarget } from './msci-polls.js'
import type { Logger } from '../../core/logger.js'
import { newTimeOrderedUid } from '../../core/security/secrets.js'
import { POLLED_IDS, entryOf } from '../../protocols/msci/ids.js'
import { valueOf } from '../../protocols/msci/values.js'
import { MsciError, type GatewayAccess } from './access.js'
import { accessParams, type AccessParams } from './params.js'
import { runTask } from './tasks.js'
import type { HostGuard } from './host-guard.js'

export type OpenAccess = (p: AccessParams, timeoutMs: number) => GatewayAccess

export interface PollDeps {
  ingest: Pick<IngestService, 'accept' | 'acceptAcks' | 'takeTasks' | 'refuse'>
  open: OpenAccess
  /** Where the host leads, checked against the addresses a poll may go to (MSCI_ALLOWED_NETWORKS). */
  hosts: HostGuard
  timeoutMs: number
  now: () => number
  log: Logger
}

/** ok: the gateway answered; periodMs: its poll period (undefined when its configuration is unusable). */
export interface PollResult { ok: boolean, periodMs: number | undefined, reason?: string }

function message (target: PollTarget, points: DataPoint[], receivedAt: number): DeviceMessage {
  return {
    uid: newTimeOrderedUid(receivedAt),
    systemUid: target.systemUid,
    companyUid: target.companyUid,
    protocol: 'MSCI',
    receivedAt,
    timestamp: receivedAt,
    points,
    nbDataPoints: points.length
  }
}

export async function pollGateway (target: PollTarget, deps: PollDeps): Promise<PollResult> {
  const { ingest, log } = deps
  const conf = accessParams(target.msci, target.parameters)
  if (!conf.ok) {
    log.warn({ systemUid: target.systemUid, reason: conf.reason }, 'MSCI gateway not polled: its configuration is unusable')
    return { ok: false, periodMs: undefined, reason: conf.reason }
  }
  const where = await deps.hosts.resolve(conf.params.host)
  if (!where.ok) {
    if (where.reason === 'msci.host.forbidden') log.warn({ systemUid: target.systemUid }, 'MSCI gateway not polled: its host is an address the service may not poll (MSCI_ALLOWED_NETWORKS)')
    return { ok: false, periodMs: conf.params.periodMs, reason: where.reason }
  }
  const params = { ...conf.params, host: where.address }
  let access: GatewayAccess | undefined
  try {
    access = deps.open(params, deps.timeoutMs)
    const raw = await access.read(POLLED_IDS[params.access])
    const receivedAt = deps.now()
    const points: DataPoint[] = []
    for (const [id, v] of raw) {
      const entry = entryOf(id)
      const value = entry === undefined ? undefined : valueOf(entry, v)
      if (entry === undefined || value === undefined) ingest.refuse('MSCI', 'msci.bad.value')
      else points.push({ dataId: entry.dataId, ts: receivedAt, value })
    }
    await ingest.accept(message(target, points, receivedAt))
    // The gateway answered: its waiting tasks go over the same conversation (again: those a failed poll left SENT).
    // Taking them is a transaction of its own: only when the claim saw some.
    const tasks = target.hasTasks ? await ingest.takeTasks(target.systemUid, 'MSCI', { again: true }) : []
    for (const task of tasks) {
      const answer = await runTask(access, task, target.actions, deps.now)
      if (answer.points !== undefined && answer.points.length > 0) await ingest.accept(message(target, answer.points, deps.now()))
      await ingest.acceptAcks(target.systemUid, 'MSCI', [{ uid: answer.uid, status: answer.status, message: answer.message }])
    }
    return { ok: true, periodMs: params.periodMs }
  } catch (err) {
    if (!(err instanceof MsciError)) {
      // The store did not take the message or the acks: the gateway did answer (no failure of its own); what was not
      // stored is read again next period, and an unacked task is delivered again then.
      log.warn({ err, systemUid: target.systemUid }, 'MSCI poll not stored')
      return { ok: true, periodMs: params.periodMs, reason: 'store' }
    }
    if (err.kind === 'garbage') ingest.refuse('MSCI', 'msci.garbage')
    log.debug({ systemUid: target.systemUid, kind: err.kind, reason: err.message }, 'MSCI poll failed')
    return { ok: false, periodMs: params.periodMs, reason: err.kind }
  } finally {
    access?.close()
  }
}
