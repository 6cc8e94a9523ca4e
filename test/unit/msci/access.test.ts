// The two access paths against the simulated AirLink gateway (docs/protocols/msci.md), over real sockets:
// SNMP v2c and v3 (authNoPriv, authPriv) and AceManager HTTP read the ALEOS ids, write settings that stick, reboot;
// wrong credentials are denied or unanswered, never a crash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAirlinkGateway, type AirlinkGateway } from '../../../simulator/airlink/gateway.js'
import { startSnmpAgent, type SimulatedSnmpAgent } from '../../../simulator/airlink/snmp-agent.js'
import { startAceManager, type SimulatedAceManager } from '../../../simulator/airlink/acemanager-server.js'
import { snmpAccess } from '../../../ingest/msci/snmp-access.js'
import { acemanagerAccess } from '../../../ingest/msci/acemanager-access.js'
import { MsciError } from '../../../ingest/msci/access.js'
import type { AccessParams } from '../../../ingest/msci/params.js'
import { MSCI_REBOOT, POLLED_IDS } from '../../../protocols/msci/ids.js'

const base: AccessParams = { access: 'snmp', host: '127.0.0.1', port: 0, snmpVersion: '2c', snmpSecurity: 'authNoPriv', user: '', password: '', periodMs: 1000 }

let gw: AirlinkGateway
let v2: SimulatedSnmpAgent
let v3: SimulatedSnmpAgent
let v3priv: SimulatedSnmpAgent
let ace: SimulatedAceManager
beforeAll(async () => {
  gw = createAirlinkGateway({ serial: 'AL0001' })
  v2 = await startSnmpAgent(gw, { community: 'c0mmunity' })
  v3 = await startSnmpAgent(gw, { user: { name: 'fleet', password: 'authpass123' } })
  v3priv = await startSnmpAgent(gw, { user: { name: 'fleet', password: 'authpass123', priv: true } })
  ace = await startAceManager(gw, { user: 'user', password: 'pa]]>ss' })
})
afterAll(async () => {
  await Promise.all([v2.close(), v3.close(), v3priv.close(), ace.close()])
})

async function expectError (p: Promise<unknown>, kind: MsciError['kind']): Promise<void> {
  const err = await p.then(() => undefined, (e: unknown) => e)
  expect(err).toBeInstanceOf(MsciError)
  expect((err as MsciError).kind).toBe(kind)
}

describe('SNMP', () => {
  it.each([
    ['v2c', () => ({ ...base, port: v2.port, password: 'c0mmunity' })],
    ['v3 authNoPriv', () => ({ ...base, port: v3.port, snmpVersion: '3' as const, user: 'fleet', password: 'authpass123' })],
    ['v3 authPriv', () => ({ ...base, port: v3priv.port, snmpVersion: '3' as const, snmpSecurity: 'authPriv' as const, user: 'fleet', password: 'authpass123' })]
  ])('%s reads the ALEOS ids, writes a setting that sticks', async (_, params) => {
    const a = snmpAccess(params(), 2000)
    try {
      const values = await a.read(POLLED_IDS.snmp)
      expect(typeof values.get(261)).toBe('number')
      expect(values.get(264)).toBe('LTE')
      expect(String(values.get(771))).toMatch(/^8933/)
      expect(values.size).toBe(POLLED_IDS.snmp.length)
      await a.write([[1154, 'north-gate']])
      expect(gw.settings().get(1154)).toBe('north-gate')
      expect((await a.read([1154])).get(1154)).toBe('north-gate')
      await expectError(a.write([[261, 5]]), 'refused') // a status id is read-only
    } finally { a.close() }
  })

  it('reboots on 65001 = 1', async () => {
    const a = snmpAccess({ ...base, port: v2.port, password: 'c0mmunity' }, 2000)
    const before = gw.reboots()
    try { await a.write([[MSCI_REBOOT, 1]]) } finally { a.close() }
    expect(gw.reboots()).toBe(before + 1)
  })

  it('a wrong community gets no answer; a wrong v3 password is denied or unanswered', async () => {
    const a = snmpAccess({ ...base, port: v2.port, password: 'wrong' }, 500)
    try { await expectError(a.read([261]), 'unreachable') } finally { a.close() }
    const b = snmpAccess({ ...base, port: v3.port, snmpVersion: '3', user: 'fleet', password: 'wrongpass123' }, 500)
    const err = await b.read([261]).then(() => undefined, (e: unknown) => e)
    b.close()
    expect(err).toBeInstanceOf(MsciError)
    expect(['denied', 'unreachable']).toContain((err as MsciError).kind)
    expect((err as MsciError).message).not.toContain('wrongpass123')
  })
})

describe('AceManager', () => {
  const params = (): AccessParams => ({ ...base, access: 'acemanager', port: ace.port, user: 'user', password: 'pa]]>ss' })

  it('logs in (a password holding "]]>" too), reads every polled id, writes, reboots', async () => {
    const a = acemanagerAccess(params(), 2000)
    try {
      const values = await a.read(POLLED_IDS.acemanager)
      expect(values.get(259)).toBe('Network Ready')
      expect(Number(values.get(10210))).toBeLessThan(-80)
      await a.write([[1034, 2333]])
      expect(gw.settings().get(1034)).toBe(2333)
      await expectError(a.write([[261, 1]]), 'refused')
      const before = gw.reboots()
      await a.write([[MSCI_REBOOT, 1]])
      expect(gw.reboots()).toBe(before + 1)
    } finally { a.close() }
  })

  it('a wrong password is denied; nothing of it in the error', async () => {
    const a = acemanagerAccess({ ...params(), password: 'nope-secret' }, 2000)
    const err = await a.read([261]).then(() => undefined, (e: unknown) => e)
    a.close()
    expect((err as MsciError).kind).toBe('denied')
    expect((err as MsciError).message).not.toContain('nope-secret')
  })

  it('nothing listening is unreachable', async () => {
    const a = acemanagerAccess({ ...params(), port: 1 }, 500)
    try { await expectError(a.read([261]), 'unreachable') } finally { a.close() }
  })
})
