// The one CSV writer of the service's files (core/operations/csv/write.ts): RFC 4180 quoting, and no text that a
// spreadsheet would run as a formula.
import { describe, expect, it } from 'vitest'
import { csvCell, csvLine } from '../../../core/operations/csv/write.js'

describe('csvCell', () => {
  it.each([
    ['=HYPERLINK("http://evil.test","x")', '"\'=HYPERLINK(""http://evil.test"",""x"")"'],
    ['+cmd|\' /C calc\'!A0', '\'+cmd|\' /C calc\'!A0'],
    ['-2+3+cmd|\' /C calc\'!A0', '\'-2+3+cmd|\' /C calc\'!A0'],
    ['@SUM(1+1)*cmd', '\'@SUM(1+1)*cmd'],
    ['\t=1+1', '\'\t=1+1'],
    ['\r=1+1', '"\'\r=1+1"']
  ])('writes %j after a single quote: %s', (value, written) => {
    expect(csvCell(value)).toBe(written)
  })

  it.each([['-71', '\'-71'], ['+3.5', '\'+3.5'], ['a=b', 'a=b'], ['1e-3', '1e-3'], ['', '']])('writes the text %j as %s', (value, written) => {
    expect(csvCell(value)).toBe(written)
  })

  it('writes numbers, booleans and empty values as they are, and quotes the separator of the file', () => {
    expect(csvLine([-71, true, null, undefined, 'a;b', 'a,b'], ';')).toBe('-71;true;;;"a;b";a,b')
    expect(csvLine(['a,b', 'say "hi"', 'two\nlines'])).toBe('"a,b","say ""hi""","two\nlines"')
  })
})
