// What the e2e tests that kill the service compare (acknowledge after commit, never lose): the `sim.seq` of every
// message a simulated device saw acknowledged (a PUBACK, an HTTP 200, an M3DA reply), and those the restarted
// service does not hold.
import { expect } from 'vitest'
import type { DeviceEvents } from '../../simulator/devices/simulated-device.js'
import type { Fleet } from '../../simulator/fleet.js'
import type { ApiClient } from '../../simulator/provision.js'
import type { Child } from './child.js'
import { until } from './cli-service.js'

export interface AckedSeqs {
  /** For the fleet's `events`: records each acknowledged data message. */
  events: DeviceEvents
  /** sim.seq of each acknowledged message, per system. */
  readonly bySystem: ReadonlyMap<string, number[]>
  /** Acknowledged messages so far. */
  readonly total: number
}

export function recordAckedSeqs (): AckedSeqs {
  const bySystem = new Map<string, number[]>()
  let total = 0
  return {
    events: {
      onData: (device, points) => {
        const seq = points.find((p) => p.dataId === 'sim.seq')?.value as number
        const list = bySystem.get(device.systemUid) ?? []
        list.push(seq)
        bySystem.set(device.systemUid, list)
        total++
      }
    },
    bySystem,
    get total () { return total }
  }
}

/** Fails the test for each system whose acknowledged sim.seq the service does not hold (read through the raw data API). */
export async function expectAllStored (api: ApiClient, acked: AckedSeqs): Promise<void> {
  const uids = [...acked.bySystem.keys()]
  const stored = new Map<string, Set<number>>()
  for (let i = 0; i < uids.length; i += 5) { // docs/devices.md: up to 5 systems per request
    const targets = uids.slice(i, i + 5)
    const res = await api.request('GET', `/api/v1/systems/data/raw?targetIds=${targets.join(',')}&dataIds=sim.seq&from=0&size=500`)
    expect(res.status).toBe(200)
    const body = res.json as Record<string, Record<string, Array<{ ts: number, v: number }>>>
    for (const uid of targets) stored.set(uid, new Set((body[uid]?.['sim.seq'] ?? []).map((p) => p.v)))
  }
  for (const [uid, seqs] of acked.bySystem) {
    expect(seqs.length).toBeLessThan(500) // all of them fit in one raw page
    const missing = seqs.filter((s) => stored.get(uid)?.has(s) !== true)
    expect(missing, `system ${uid}: acknowledged but not stored`).toEqual([])
  }
}

/**
 * Kills the service with SIGKILL once `n` messages were acknowledged, then stops the fleet: nothing is acknowledged
 * by a dead service, and every device had some acknowledged before.
 */
export async function killAfterAcks (service: Child, fleet: Fleet, acked: AckedSeqs, n: number, timeoutMs: number): Promise<void> {
  await fleet.ready
  await until(`${n} acknowledged messages`, () => acked.total >= n, timeoutMs)
  service.signal('SIGKILL')
  expect(await service.exited()).toMatchObject({ signal: 'SIGKILL' })
  const atKill = acked.total
  await fleet.stop()
  expect(acked.total).toBe(atKill)
  expect(acked.bySystem.size).toBe(fleet.devices.length)
}
