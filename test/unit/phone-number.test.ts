// A user's phone number (core/domain/phone-number.ts): the one rule the seed file checks and the API documents.
import { describe, expect, it } from 'vitest'
import { isPhoneNumber, PHONE_NUMBER_PATTERN } from '../../core/domain/phone-number.js'
import { seedShapeError } from '../../core/services/seed.service.js'

describe('a phone number', () => {
  it('is a +, a country code not starting with 0, then digits, 19 digits at most', () => {
    for (const ok of ['+33612345678', '+1', '+1234567890123456789', '+441234567890']) expect(isPhoneNumber(ok)).toBe(true)
  })

  it('refuses a national number, separators, a leading 0 after the +, letters and 20 digits', () => {
    for (const bad of ['0612345678', '33612345678', '+33 6 12 34 56 78', '+33-612345678', '+0612345678', '+', '', '+3361234567a', '+12345678901234567890', ' +33612345678']) {
      expect(isPhoneNumber(bad), bad).toBe(false)
    }
  })

  it('is the rule of the seed file, which names the field and the pattern', () => {
    const user = (phoneNumber: string | null) => ({ users: [{ email: 'a@b.test', name: 'A', phoneNumber, companies: [{ company: 'X' }] }] })
    expect(seedShapeError(user('06 12 34 56 78'))).toBe(`invalid seed document at /users/0/phoneNumber: must match pattern "${PHONE_NUMBER_PATTERN}"`)
    expect(seedShapeError(user('06 12 34 56 78'))).toBe('invalid seed document at /users/0/phoneNumber: must match pattern "^(\\+[1-9])[0-9]{0,18}$"')
    expect(seedShapeError(user('+33612345678'))).toBe('invalid seed document')
    expect(seedShapeError(user(null))).toBe('invalid seed document')
  })
})
