import { describe, expect, it } from 'vitest'
import { readSpec } from '../helpers/spec.js'
import { FleetError, SPEC_ERROR_CODES, isErrorCode, statusOf } from '../../core/errors.js'

// Every code named in docs/api.md#using-the-api (the shared sets and the per-endpoint table), read from the spec
// itself so that a code added there fails here until the catalogue has it (docs/architecture.md#house-rules).

function specCodes (): string[] {
  const text = readSpec('fleet-api.md')
  const section = /^## Errors\n([\s\S]*?)^## /m.exec(text)?.[1]
  if (section === undefined) throw new Error('no "## Errors" section in fleet-api.md')
  // A code is a dotted lowercase word (`system.unknown`), backticked or bare.
  const codes = section.match(/\b[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+\b/g) ?? []
  return [...new Set(codes)].sort()
}

const codes = specCodes()

describe('the error catalogue (core/errors.ts)', () => {
  it('reads the codes of fleet-api.md §Errors', () => {
    // Sets G, C, S, T, F and the endpoint table name more than a hundred codes; a regex gone wrong finds few.
    expect(codes.length).toBeGreaterThan(100)
    expect(codes).toContain('gateway.invalid.mac.address')
    expect(codes).toContain('operation.reset.missing.reset.action.in.system')
    expect(codes).toContain('file.too.large')
  })

  it.each(codes)('holds %s as a spec code answering 400', (code) => {
    expect(SPEC_ERROR_CODES).toContain(code)
    expect(isErrorCode(code)).toBe(true)
    if (!isErrorCode(code)) return
    expect(statusOf(code)).toBe(400)
    const err = new FleetError(code, ['p', 1])
    expect(err).toMatchObject({ code, status: 400, params: ['p', '1'] })
  })

  it('holds no spec code that the spec does not name', () => {
    expect(SPEC_ERROR_CODES.filter((c) => !codes.includes(c))).toEqual([])
  })

  it('gives our own codes their statuses (conventions.md §Errors)', () => {
    expect(statusOf('missing.rights')).toBe(403)
    expect(statusOf('invalid_token')).toBe(401)
    expect(statusOf('not.found')).toBe(404)
    expect(statusOf('rate.limit.exceeded')).toBe(429)
    expect(statusOf('internal.error')).toBe(500)
    expect(statusOf('request.invalid')).toBe(400)
    expect(isErrorCode('no.such.code')).toBe(false)
  })
})
