// console/src/lib/errors.ts: every code the service answers has a sentence, and parameters land in it.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { isErrorCode, SPEC_ERROR_CODES } from '../../../core/errors.js'
import { errorSentence, errorText, hasSentence, taskErrorText } from '../../../console/src/lib/errors.js'

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

describe('error texts beyond the sentence', () => {
  it('adds the service\'s last parameter when it tells what to do, not an id or what the sentence shows', () => {
    const hint = 'attach an application that declares them as variables or settings (GET /api/v1/applications)'
    expect(errorText('operation.all.data.undefined', ['_RSSI', hint]))
      .toBe('None of the data ids is defined by the systems\' applications. Attach an application that declares them as variables or settings (GET /api/v1/applications).')
    expect(errorText('system.unknown', ['3f2a'])).toBe('This system does not exist in the company.')
    expect(errorText('missing.rights', ['entities.systems.edit'])).toBe('You do not have the right to do this (entities.systems.edit).')
    expect(errorText('sort.invalid.field', ['type', 'sortable: name, creationDate'])).toBe('The list cannot be sorted by type. Sortable: name, creationDate.')
  })

  it('shows a task\'s own message: a setting of another type is not an unknown template', () => {
    expect(taskErrorText('settings.unknown', 'settings.unknown conf.level declared int given string'))
      .toBe('A setting is not declared by the system\'s applications, or with another type: conf.level declared int given string')
    expect(taskErrorText('operation.data.undefined', 'operation.data.undefined conf.x')).toBe('A data id is not defined by the system\'s applications: conf.x')
    expect(taskErrorText('operation.timeout', 'operation.timeout')).toBe('The device did not answer in time.')
  })

  it('shows the device\'s own words for its ERROR', () => {
    expect(taskErrorText('operation.device.error', 'flash write failed: sector 4')).toBe('The device reported an error: flash write failed: sector 4')
    expect(taskErrorText('operation.device.error', 'ERROR')).toBe('The device reported an error.')
  })
})
