// console/src/lib/errors.ts: every code the service answers has a sentence, and parameters land in it.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { isErrorCode, SPEC_ERROR_CODES } from '../../../core/errors.js'
import { errorSentence, hasSentence } from '../../../console/src/lib/errors.js'

/** The service's own codes: the keys of OWN_CODES in core/errors.ts (not exported, read from the source). */
function ownCodes (): string[] {
  const source = readFileSync(new URL('../../../core/errors.ts', import.meta.url), 'utf8')
  const block = source.slice(source.indexOf('OWN_CODES'))
  return [...block.matchAll(/^\s+'?([a-z_.]+)'?: \d{3}/gm)].map((m) => m[1] ?? '').filter(isErrorCode)
}

describe('error sentences', () => {
  it('has a sentence for every code of fleet-api.md and conventions.md the service knows', () => {
    const own = ownCodes()
    expect(own).toContain('invalid_token')
    expect(own).toContain('rate.limit.exceeded')
    expect([...SPEC_ERROR_CODES, ...own].filter((c) => !hasSentence(c))).toEqual([])
  })

  it('puts the parameters in, and leaves out the part of a missing one', () => {
    expect(errorSentence('missing.rights', ['entities.systems.edit'])).toBe('You do not have the right to do this (entities.systems.edit).')
    expect(errorSentence('missing.rights')).toBe('You do not have the right to do this.')
    expect(errorSentence('label.unknown', ['north'])).toBe('No system has the label north.')
    expect(errorSentence('request.invalid')).toBe('The request is not valid.')
  })

  it('still says something for a code it does not know', () => {
    expect(errorSentence('brand.new.code')).toBe('The service refused the request (brand.new.code).')
  })
})
