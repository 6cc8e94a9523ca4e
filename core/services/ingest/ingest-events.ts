// What ingest commits, as live stream events (core/ports/events.ts).
import type { DeviceMessage } from '../../domain/device-message.js'
import type { CommStatusEvent, MessageEvent } from '../../ports/events.js'
import type { IngestSystemState } from '../../ports/telemetry.js'
import { ON_TRAFFIC } from '../../domain/comm-status.js'

/** A committed device message and its points, under `company`: the one that held the system at the commit. */
export function messageEvent (m: DeviceMessage, company: string): MessageEvent {
  return {
    kind: 'message',
    company,
    system: m.systemUid,
    uid: m.uid,
    protocol: m.protocol,
    timestamp: m.timestamp,
    points: m.points.map((p) => ({ dataId: p.dataId, ts: p.ts, v: p.value }))
  }
}

/**
 * Traffic sets commStatus OK (../../domain/comm-status.ts; TelemetryRepository.updateSystems): one event per system that was
 * not OK before this update, read from the rows the transaction locked. `lastComm` is the traffic time of each
 * system; lastCommDate never goes back.
 */
export function commStatusEvents (states: readonly IngestSystemState[], lastComm: number | ((uid: string) => number)): CommStatusEvent[] {
  const at = typeof lastComm === 'number' ? () => lastComm : lastComm
  return states.filter((s) => s.commStatus !== ON_TRAFFIC).map((s) => ({
    kind: 'commStatus',
    company: s.companyUid,
    system: s.uid,
    status: ON_TRAFFIC,
    lastCommDate: Math.max(s.lastCommDate ?? 0, at(s.uid))
  }))
}
