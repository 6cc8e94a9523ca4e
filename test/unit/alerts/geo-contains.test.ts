// GEO_CONTAINS (core/domain/geo-polygon.ts through the evaluator): inside, outside, on an edge or a vertex, in a
// hole, in a concave polygon's notch; where the position comes from; the WKT texts that are not polygons. A polygon
// across the antimeridian is out of scope (the module's comment says so), so no case crosses ±180°.
import { describe, expect, it } from 'vitest'
import { evaluateRule } from '../../../core/domain/alert-conditions.js'
import { parseWktPolygon } from '../../../core/domain/geo-polygon.js'
import { attr, cond, factsOf, str, type FactsInput } from '../../helpers/alert-facts.js'

const SQUARE = 'POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))'
const WITH_HOLE = 'POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (4 4, 6 4, 6 6, 4 6, 4 4))'
// A U: the notch between x = 3 and x = 7 above y = 3 is outside.
const U = 'POLYGON((0 0, 10 0, 10 10, 7 10, 7 3, 3 3, 3 10, 0 10, 0 0))'
// Around Lyon, with real coordinates that are not exact in binary.
const LYON = 'POLYGON((4.7712 45.7071, 4.9281 45.7071, 4.9281 45.8088, 4.7712 45.8088, 4.7712 45.7071))'

const at = (lonLat: string): FactsInput => ({ data: { _LON_LAT: lonLat } })
const geo = (wkt: string, input: FactsInput, name = 'DATA._LON_LAT'): boolean =>
  evaluateRule([cond('GEO_CONTAINS', attr(name), str(wkt))], factsOf(input)).holds

describe('GEO_CONTAINS', () => {
  it.each([
    ['inside', SQUARE, '5,5', true],
    ['outside', SQUARE, '11,5', false],
    ['outside, level with an edge', SQUARE, '-1,0', false],
    ['on an edge', SQUARE, '10,5', true],
    ['on a vertex', SQUARE, '0,0', true],
    ['within the edge tolerance', SQUARE, '10.0000000001,5', true],
    ['just beyond the tolerance', SQUARE, '10.00001,5', false],
    ['in the hole', WITH_HOLE, '5,5', false],
    ['on the hole edge', WITH_HOLE, '4,5', true],
    ['between the hole and the outer ring', WITH_HOLE, '2,5', true],
    ['in the concave notch', U, '5,8', false],
    ['in a concave arm', U, '1.5,8', true],
    ['in the concave base', U, '5,1.5', true],
    ['on the notch edge', U, '5,3', true],
    ['in Lyon', LYON, '4.8357,45.7640', true],
    ['in Paris', LYON, '2.3522,48.8566', false],
    ['a space as separator', SQUARE, '5 5', true],
    ['spaces around the comma', SQUARE, ' 5 , 5 ', true],
    ['lon first: (5, 20) is outside', SQUARE, '5,20', false],
    ['a position that is not one', SQUARE, 'here', false],
    ['three numbers', SQUARE, '5,5,5', false]
  ])('%s', (_name, wkt, lonLat, expected) => {
    expect(geo(wkt, at(lonLat))).toBe(expected)
  })

  it('falls back on the system latitude and longitude when DATA._LON_LAT has no value', () => {
    expect(geo(LYON, { system: { latitude: 45.764, longitude: 4.8357 } })).toBe(true)
    expect(geo(LYON, { system: { latitude: 48.8566, longitude: 2.3522 } })).toBe(false)
    expect(geo(LYON, { system: { latitude: null, longitude: 4.8357 } })).toBe(false)
    expect(geo(LYON, {})).toBe(false)
  })

  it('prefers DATA._LON_LAT to the system position, and reports the position it used', () => {
    const facts = factsOf({ data: { _LON_LAT: '2.3522,48.8566' }, system: { latitude: 45.764, longitude: 4.8357 } })
    expect(evaluateRule([cond('GEO_CONTAINS', attr('DATA._LON_LAT'), str(LYON))], facts)).toEqual({
      holds: false, attributes: [{ id: { name: 'DATA._LON_LAT' }, value: { valueStr: '2.3522,48.8566' } }]
    })
    const fallback = factsOf({ system: { latitude: 45.764, longitude: 4.8357 } })
    expect(evaluateRule([cond('GEO_CONTAINS', attr('DATA._LON_LAT'), str(LYON))], fallback).attributes)
      .toEqual([{ id: { name: 'DATA._LON_LAT' }, value: { valueStr: '4.8357,45.764' } }])
  })

  it('reads another data id as a position, with no fallback, and no system attribute', () => {
    expect(geo(SQUARE, { data: { pos: '5,5' } }, 'DATA.pos')).toBe(true)
    expect(geo(SQUARE, { system: { latitude: 5, longitude: 5 } }, 'DATA.pos')).toBe(false)
    expect(geo(SQUARE, { system: { latitude: 5, longitude: 5 } }, 'system.name')).toBe(false)
    expect(geo(SQUARE, { data: { _LON_LAT: 5 } })).toBe(false)
  })

  it.each([
    ['EMPTY', 'POLYGON EMPTY'],
    ['an open ring', 'POLYGON((0 0, 10 0, 10 10, 0 10))'],
    ['three points', 'POLYGON((0 0, 10 0, 0 0))'],
    ['a third coordinate', 'POLYGON((0 0 1, 10 0 1, 10 10 1, 0 10 1, 0 0 1))'],
    ['a MULTIPOLYGON', 'MULTIPOLYGON(((0 0, 10 0, 10 10, 0 10, 0 0)))'],
    ['no inner parentheses', 'POLYGON(0 0, 10 0, 10 10, 0 10, 0 0)'],
    ['a word for a number', 'POLYGON((0 0, ten 0, 10 10, 0 10, 0 0))'],
    ['a trailing comma', 'POLYGON((0 0, 10 0, 10 10, 0 10, 0 0),)'],
    ['text after it', 'POLYGON((0 0, 10 0, 10 10, 0 10, 0 0)) x'],
    ['nothing', ''],
    ['a latitude beyond 90', 'POLYGON((0 0, 10 0, 10 95, 0 10, 0 0))'],
    ['a longitude beyond 180', 'POLYGON((170 0, 190 0, 190 10, 170 10, 170 0))']
  ])('a WKT with %s is not a polygon and holds nothing', (_name, wkt) => {
    expect(parseWktPolygon(wkt)).toBeUndefined()
    expect(geo(wkt, at('5,5'))).toBe(false)
  })

  // A rule's text comes from API clients: a parser that backtracks would take minutes on these (the test's timeout).
  it.each([
    ['spaces, no ring', `POLYGON(${' '.repeat(100_000)}x`],
    ['an unclosed ring', `POLYGON((${' '.repeat(100_000)}`],
    ['rings, then junk', `POLYGON(${'(1 1) , '.repeat(12_500)}x`],
    ['a long ring, then junk', `POLYGON((${'1 1,'.repeat(25_000)})) x`]
  ])('reads a 100,000-character text that is not a polygon at once: %s', (_name, wkt) => {
    expect(parseWktPolygon(wkt)).toBeUndefined()
    expect(geo(wkt, at(' ,'.repeat(50_000)))).toBe(false)
  })

  it('reads the keyword in any case, with any spaces', () => {
    expect(parseWktPolygon(' polygon ( ( 0 0 ,10 0,10 10,0 10,0 0 ) ) ')?.rings[0]).toHaveLength(5)
    expect(parseWktPolygon('POLYGON((-180 -90, 180 -90, 180 90, -180 90, -180 -90))')).toBeDefined()
    expect(geo('Polygon((0 0,10 0,10 10,0 10,0 0))', at('5,5'))).toBe(true)
  })
})
