// Gateway identifier formats (core/domain/identifiers.ts; docs/api.md set G).
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { imeiCheckDigit, validEsn, validImei, validMac, validMeid } from '../../core/domain/identifiers.js'

describe('IMEI', () => {
  it('accepts 15 digits with the Luhn check digit (3GPP TS 23.003 §6.2.1)', () => {
    expect(validImei('490154203237518')).toBe(true) // the example of TS 23.003 Annex B
    expect(validImei('356938035643809')).toBe(true)
    expect(imeiCheckDigit('49015420323751')).toBe('8')
  })

  it('refuses a wrong check digit, 14 or 16 digits, letters and blanks', () => {
    expect(validImei('490154203237519')).toBe(false)
    expect(validImei('49015420323751')).toBe(false)
    expect(validImei('4901542032375180')).toBe(false)
    expect(validImei('49015420323751A')).toBe(false)
    expect(validImei(' 490154203237518')).toBe(false)
    expect(validImei('')).toBe(false)
  })

  it('imeiCheckDigit makes every 14 digits a valid IMEI, and only that digit does', () => {
    fc.assert(fc.property(fc.stringMatching(/^\d{14}$/), (first14) => {
      const check = imeiCheckDigit(first14)
      expect(validImei(first14 + check)).toBe(true)
      for (let d = 0; d < 10; d++) if (String(d) !== check) expect(validImei(first14 + String(d))).toBe(false)
    }))
  })

  it('catches any single changed digit', () => {
    fc.assert(fc.property(fc.stringMatching(/^\d{14}$/), fc.nat(13), fc.integer({ min: 1, max: 9 }), (first14, at, delta) => {
      const imei = first14 + imeiCheckDigit(first14)
      const changed = imei.slice(0, at) + String((Number(imei[at]) + delta) % 10) + imei.slice(at + 1)
      expect(validImei(changed)).toBe(false)
    }))
  })
})

describe('ESN', () => {
  it('accepts 8 hexadecimal digits and the 11-digit decimal form', () => {
    expect(validEsn('8A3C21F0')).toBe(true)
    expect(validEsn('8a3c21f0')).toBe(true)
    expect(validEsn('13803480864')).toBe(true) // 138 / 03480864
    expect(validEsn('25516777215')).toBe(true) // the largest decimal ESN
  })

  it('refuses other lengths, non-hex characters and decimal parts out of range', () => {
    expect(validEsn('8A3C21F')).toBe(false)
    expect(validEsn('8A3C21F0A')).toBe(false)
    expect(validEsn('8G3C21F0')).toBe(false)
    expect(validEsn('25612345678')).toBe(false) // manufacturer code over 255
    expect(validEsn('25516777216')).toBe(false) // serial over 2^24 - 1
  })
})

describe('MEID', () => {
  it('accepts 14 hexadecimal digits, with or without a check digit, and the 18-digit decimal form', () => {
    expect(validMeid('A10000009296F2')).toBe(true)
    expect(validMeid('A10000009296F21')).toBe(true)
    expect(validMeid('270113177609606898')).toBe(true)
  })

  it('refuses other lengths and characters', () => {
    expect(validMeid('A10000009296F')).toBe(false)
    expect(validMeid('A10000009296F212')).toBe(false)
    expect(validMeid('Z10000009296F2')).toBe(false)
    expect(validMeid('27011317760960689')).toBe(false)
  })
})

describe('MAC address', () => {
  it('accepts six pairs with one kind of separator, or 12 hexadecimal digits', () => {
    expect(validMac('00:1A:2b:3C:4d:5E')).toBe(true)
    expect(validMac('00-1A-2B-3C-4D-5E')).toBe(true)
    expect(validMac('001A2B3C4D5E')).toBe(true)
  })

  it('refuses mixed separators, wrong lengths and non-hex characters', () => {
    expect(validMac('00:1A-2B:3C:4D:5E')).toBe(false)
    expect(validMac('00:1A:2B:3C:4D')).toBe(false)
    expect(validMac('00:1A:2B:3C:4D:5E:6F')).toBe(false)
    expect(validMac('00:1A:2B:3C:4D:5G')).toBe(false)
    expect(validMac('001A2B3C4D5')).toBe(false)
    expect(validMac('0:1A:2B:3C:4D:5E')).toBe(false)
  })
})
