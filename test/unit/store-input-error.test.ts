// The safety net of the error handler (docs/api.md#using-the-api: bad input never answers 500): a PostgreSQL data
// exception (class 22) or program limit (class 54) that a request's value caused answers 400 request.invalid.
import { describe, expect, it } from 'vitest'
import { isStoreInputError, toFleetError } from '../../api/plugins/error-handler.js'

/** What pg (DatabaseError) and PGlite throw: an Error with the SQLSTATE in `code` and a `severity`. */
const storeError = (code: string, message: string): Error => Object.assign(new Error(message), { code, severity: 'ERROR' })

describe('store errors caused by a value of the request', () => {
  it.each([
    ['22003', 'value "99999999999999999999" is out of range for type bigint'],
    ['22P02', 'invalid input syntax for type bigint: "Infinity"'],
    ['22021', 'invalid byte sequence for encoding "UTF8": 0x00'],
    ['22008', 'timestamp out of range'],
    ['22001', 'value too long for type character varying(64)'],
    ['54000', 'index row size 3000 exceeds btree version 4 maximum 2704']
  ])('%s answers 400 request.invalid, with no word of the store in its parameters', (code, message) => {
    const e = toFleetError(storeError(code, message))
    expect({ code: e.code, status: e.status }).toEqual({ code: 'request.invalid', status: 400 })
    expect(e.params.join(' ')).not.toMatch(/bigint|UTF8|btree|varying|timestamp/)
    expect(isStoreInputError(storeError(code, message))).toBe(true)
  })

  it.each([
    ['23505', 'duplicate key value violates unique constraint'],
    ['42703', 'column "x" does not exist'],
    ['57P01', 'terminating connection due to administrator command'],
    ['53300', 'too many connections']
  ])('%s stays a server fault: 500 internal.error', (code, message) => {
    expect(isStoreInputError(storeError(code, message))).toBe(false)
    expect(toFleetError(storeError(code, message)).status).toBe(500)
  })

  it('an error that only looks like one (no severity, or a code of another shape) is a server fault', () => {
    expect(isStoreInputError(Object.assign(new Error('x'), { code: '22003' }))).toBe(false)
    expect(isStoreInputError(Object.assign(new Error('x'), { code: 'ERR_22003', severity: 'ERROR' }))).toBe(false)
    expect(isStoreInputError(null)).toBe(false)
    expect(toFleetError(new TypeError('boom')).status).toBe(500)
  })
})
