// The periodic resync of the external broker (bin/broker.ts brokerResyncJob): one repeatable job that writes the
// trust bundle again (BROKER_CA_FILE) and runs the full sync, each when the process has it; none when switched off.
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { brokerResyncJob } from '../../../bin/broker.js'
import type { BrokerTrust } from '../../../ingest/broker-sync/broker-trust.js'
import type { DynsecSync } from '../../../ingest/broker-sync/dynsec-sync.js'
import { noCounts } from '../../../ingest/broker-sync/dynsec-plan.js'

const log = pino({ level: 'silent' })

function fakes (): { calls: string[], sync: DynsecSync, trust: BrokerTrust } {
  const calls: string[] = []
  const sync = { fullSync: async () => { calls.push('fullSync'); return noCounts() } } as unknown as DynsecSync
  const trust = { write: async () => { calls.push('write'); return true } } as unknown as BrokerTrust
  return { calls, sync, trust }
}

describe('the broker resync job', () => {
  it('writes the bundle, then brings the logins in step, every MQTT_DYNSEC_RESYNC_S seconds', async () => {
    const { calls, sync, trust } = fakes()
    const { jobs } = brokerResyncJob({ MQTT_DYNSEC_RESYNC_S: 60 }, sync, log, trust)
    expect(jobs['broker.resync']?.everyMs).toBe(60_000)
    await jobs['broker.resync']?.run()
    expect(calls).toEqual(['write', 'fullSync'])
  })

  it('keeps the bundle alone where dynamic security is off, and runs nothing at MQTT_DYNSEC_RESYNC_S=0', async () => {
    const { calls, trust, sync } = fakes()
    await brokerResyncJob({ MQTT_DYNSEC_RESYNC_S: 60 }, undefined, log, trust).jobs['broker.resync']?.run()
    expect(calls).toEqual(['write'])
    expect(brokerResyncJob({ MQTT_DYNSEC_RESYNC_S: 0 }, sync, log, trust).jobs).toEqual({})
    expect(brokerResyncJob({ MQTT_DYNSEC_RESYNC_S: 60 }, undefined, log).jobs).toEqual({})
  })
})
