// The pure MSCI codecs (docs/protocols/msci.md): the AceManager bodies and `id=value!` answers, the MSCI id ↔ data id and
// OID tables, and the values a gateway sends. Property tests: no input makes a parser throw, and what is written reads back.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatValues, getBody, loginAccepted, loginBody, parseGetBody, parseLoginBody, parseValues } from '../../../protocols/msci/acemanager.js'
import { MSCI_REBOOT, MSCI_TABLE, POLLED_IDS, msciIdOf } from '../../../protocols/msci/ids.js'
import { idOfOid, readOid, writeOid } from '../../../protocols/msci/oids.js'
import { numeric, plainValue, valueOf } from '../../../protocols/msci/values.js'

const msciId = fc.integer({ min: 0, max: 0xFFFE })

describe('AceManager bodies', () => {
  it('parses the answer of §5.2 A.2', () => {
    expect(parseValues('261=-71!259=Network Ready!301=10.1.2.3!10210=-97!')).toEqual({
      ok: true, values: [[261, '-71'], [259, 'Network Ready'], [301, '10.1.2.3'], [10210, '-97']]
    })
    expect(parseValues('')).toEqual({ ok: true, values: [] })
    expect(parseValues('1=a=b!')).toEqual({ ok: true, values: [[1, 'a=b']] })
  })

  it('refuses what is not id=value! pairs', () => {
    for (const bad of ['261=-71', '261-71!', 'x=1!', '65535=1!', '99999999=1!', '<html>', '!', '261=1!!']) {
      expect(parseValues(bad).ok).toBe(false)
    }
  })

  it('never throws, whatever the body', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (body) => {
      const r = parseValues(body)
      if (r.ok) for (const [id] of r.values) expect(id).toBeLessThan(0xFFFF)
    }), { numRuns: 2000 })
  })

  it('reads back what it writes (a value holds no "!")', () => {
    fc.assert(fc.property(fc.array(fc.tuple(msciId, fc.string({ maxLength: 20 }).map((s) => s.replace(/!/g, '')))), (pairs) => {
      expect(parseValues(formatValues(pairs))).toEqual({ ok: true, values: pairs })
    }))
  })

  it('logs in with any user and password, "]]>" and XML specials included', () => {
    fc.assert(fc.property(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }), (user, password) => {
      expect(parseLoginBody(loginBody(user.replace(/</g, ''), password))).toEqual({ user: user.replace(/</g, ''), password })
    }))
    expect(loginBody('user', 'a]]>b')).toContain('<![CDATA[a]]]]><![CDATA[>b]]>')
    expect(loginAccepted('<response><connect message=\'OK\'/></response>')).toBe(true)
    expect(loginAccepted('<response><connect message=\'Invalid user name or password\'/></response>')).toBe(false)
    expect(parseGetBody(getBody([261, 259]))).toEqual({ ok: true, ids: [261, 259] })
    expect(parseGetBody('261,x').ok).toBe(false)
  })
})

describe('MSCI ids', () => {
  it('names the ids of the table by data id or number; reboot is 65001', () => {
    expect(msciIdOf('_RSSI')).toBe(261)
    expect(msciIdOf('aleos.iccid')).toBe(771)
    expect(msciIdOf('aleos.reboot')).toBe(MSCI_REBOOT)
    expect(msciIdOf('1034')).toBe(1034)
    expect(msciIdOf('aleos.config.1034')).toBe(1034)
    for (const notOne of ['machine.temperature', 'aleos.65535', 'aleos.', '', 'x.123456', 'constructor']) expect(msciIdOf(notOne)).toBeUndefined()
    expect(new Set(MSCI_TABLE.map((e) => e.id)).size).toBe(MSCI_TABLE.length)
    expect(POLLED_IDS.snmp.length).toBeLessThan(POLLED_IDS.acemanager.length)
  })

  it('OIDs: the table group to read, the configuration group to write (§5.3)', () => {
    expect(readOid(261)).toBe('1.3.6.1.4.1.20542.9.1.1.1.261.0')
    expect(readOid(771)).toBe('1.3.6.1.4.1.20542.9.1.1.2.771.0')
    expect(readOid(900)).toBe('1.3.6.1.4.1.20542.9.1.1.7.900.0')
    expect(writeOid(MSCI_REBOOT)).toBe('1.3.6.1.4.1.20542.9.1.12.65001.0')
    fc.assert(fc.property(msciId, (id) => { expect(idOfOid(readOid(id))).toBe(id); expect(idOfOid(writeOid(id))).toBe(id) }))
    for (const other of ['1.3.6.1.2.1.1.1.0', '1.3.6.1.4.1.20542.9.1.261.0', '1.3.6.1.4.1.20542.9.1.1.1.70000.0']) expect(idOfOid(other)).toBeUndefined()
  })

  it('values: numbers from text, tenths for RSRP / RSRQ, the service types of fleet-api.md, garbage left out', () => {
    const unit = (id: number) => { const e = MSCI_TABLE.find((x) => x.id === id); if (e === undefined) throw new Error(String(id)); return e }
    expect(valueOf(unit(261), ' -71 ')).toBe(-71)
    expect(valueOf(unit(261), '23 dBm')).toBeUndefined()
    expect(valueOf(unit(10210), -97)).toBe(-970)
    expect(valueOf(unit(264), 'HSPA+')).toBe('HSPA')
    expect(valueOf(unit(264), 'LTE')).toBe('LTE')
    expect(valueOf(unit(264), 'warp drive')).toBe('Unknown')
    expect(valueOf(unit(902), '45.5')).toBe(45.5)
    expect(valueOf(unit(902), '4550000')).toBeUndefined()
    expect(valueOf(unit(771), '  ')).toBeUndefined()
    expect(plainValue('2332')).toBe(2332)
    expect(plainValue('north')).toBe('north')
    expect(numeric('1e400')).toBeUndefined()
    fc.assert(fc.property(fc.oneof(fc.string(), fc.double()), fc.constantFrom(...MSCI_TABLE), (raw, e) => {
      const v = valueOf(e, raw)
      if (typeof v === 'number') expect(Number.isFinite(v)).toBe(true)
    }), { numRuns: 2000 })
  })
})
