// Properties of the alert evaluator (core/domain/alert-conditions.ts) over random input: it answers for any facts and
// any condition without throwing; comparisons agree with JavaScript's on numbers, however they are written; convex
// polygons hold their vertices' convex combinations; a hole is exactly a square's complement; a ring's direction does
// not matter; any text that is not a polygon holds nothing.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { evaluateRule } from '../../../core/domain/alert-conditions.js'
import type { AlertCondition, AlertOperator, AlertValue } from '../../../core/domain/alert-rule.js'
import { parseWktPolygon, type GeoPoint } from '../../../core/domain/geo-polygon.js'
import { attr, cond, factsOf, num, str } from '../../helpers/alert-facts.js'

const OPERATORS: AlertOperator[] = ['EQUALS', 'NOT_EQUALS', 'GT', 'GTE', 'LT', 'LTE', 'IN', 'CONTAINS', 'GEO_CONTAINS',
  'NO_COMMUNICATION_FOR']
const NAMES = ['DATA.a', 'DATA.b', 'DATA._LON_LAT', 'system.id', 'system.name', 'system.commStatus',
  'system.lifeCycleState', 'system.labels', 'system.comm.protocol', 'system.lastCommDate']

const value: fc.Arbitrary<AlertValue> = fc.oneof(fc.string(), fc.double(), fc.integer(), fc.boolean(), fc.constant(null),
  fc.constantFrom('12', '1e3', 'true', 'FALSE', '1,2', '3 4', ''))
const operand = fc.oneof(
  fc.constantFrom(...NAMES).map(attr), fc.string().map(attr),
  fc.string().map(str), fc.constantFrom('POLYGON((0 0, 9 0, 9 9, 0 0))', '30', '').map(str),
  fc.double().map(num), fc.array(fc.string()).map((valuesStr) => ({ valuesStr })),
  fc.anything() as fc.Arbitrary<never>)
const condition: fc.Arbitrary<AlertCondition> = fc.record({
  operator: fc.oneof(fc.constantFrom(...OPERATORS), fc.string() as fc.Arbitrary<AlertOperator>),
  operands: fc.array(operand, { maxLength: 3 })
})
const coordinate = fc.oneof(fc.double(), fc.constant(null))
const facts = fc.record({
  now: fc.oneof(fc.integer(), fc.double()),
  data: fc.dictionary(fc.constantFrom('a', 'b', '_LON_LAT', '', 'constructor'), value),
  system: fc.record({
    uid: fc.string(),
    name: fc.string(),
    commStatus: fc.string(),
    lifeCycleState: fc.string(),
    labels: fc.array(fc.string()),
    commProtocols: fc.array(fc.string()),
    lastCommDate: coordinate,
    latitude: coordinate,
    longitude: coordinate
  })
}).map(factsOf)

describe('evaluateRule on any input', () => {
  it('answers a boolean and well-formed attributes, never throwing', () => {
    fc.assert(fc.property(fc.array(condition, { maxLength: 4 }), facts, (conditions, f) => {
      const { holds, attributes } = evaluateRule(conditions, f)
      expect(typeof holds).toBe('boolean')
      for (const a of attributes) {
        expect(typeof a.id.name).toBe('string')
        if ('valueNum' in a.value) expect(typeof a.value.valueNum).toBe('number')
        else expect(typeof a.value.valueStr).toBe('string')
      }
      expect(new Set(attributes.map((a) => a.id.name)).size).toBe(attributes.length)
    }), { numRuns: 2000 })
  })
})

describe('numeric comparisons', () => {
  const expected: Record<string, (a: number, b: number) => boolean> = {
    EQUALS: (a, b) => a === b,
    NOT_EQUALS: (a, b) => a !== b,
    GT: (a, b) => a > b,
    GTE: (a, b) => a >= b,
    LT: (a, b) => a < b,
    LTE: (a, b) => a <= b
  }
  const finite = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: -1000, max: 1000 }))

  it('agree with JavaScript numbers, whether each side is a number or its decimal text', () => {
    fc.assert(fc.property(finite, finite, fc.constantFrom(...Object.keys(expected)), (a, b, op) => {
      const want = expected[op]?.(a, b)
      const holds = (data: AlertValue, right: ReturnType<typeof num>): boolean =>
        evaluateRule([cond(op as AlertOperator, attr('DATA.x'), right)], factsOf({ data: { x: data } })).holds
      expect(holds(a, num(b))).toBe(want)
      expect(holds(a, str(String(b)))).toBe(want)
      expect(holds(String(a), num(b))).toBe(want)
    }), { numRuns: 2000 })
  })
})

const wktOf = (rings: GeoPoint[][]): string =>
  `POLYGON(${rings.map((r) => `(${r.map((p) => `${p.lon} ${p.lat}`).join(', ')})`).join(', ')})`
const closed = (points: GeoPoint[]): GeoPoint[] => [...points, points[0] as GeoPoint]
const inside = (wkt: string, p: GeoPoint): boolean =>
  evaluateRule([cond('GEO_CONTAINS', attr('DATA._LON_LAT'), str(wkt))], factsOf({ data: { _LON_LAT: `${p.lon},${p.lat}` } })).holds

function area (ring: GeoPoint[]): number {
  let twice = 0
  for (let i = 1; i < ring.length; i++) {
    const a = ring[i - 1] as GeoPoint
    const b = ring[i] as GeoPoint
    twice += a.lon * b.lat - b.lon * a.lat
  }
  return Math.abs(twice) / 2
}

// A convex polygon: 3 to 12 points on a circle (whole degrees apart, so that few are too thin to test), in the order
// of their angles.
const convex = fc.record({
  lon: fc.double({ min: -170, max: 170, noNaN: true }),
  lat: fc.double({ min: -80, max: 80, noNaN: true }),
  radius: fc.integer({ min: 1, max: 1000 }).map((n) => n / 100),
  degrees: fc.uniqueArray(fc.integer({ min: 0, max: 359 }), { minLength: 3, maxLength: 12 })
}).map(({ lon, lat, radius, degrees }) => closed([...degrees].sort((x, y) => x - y).map((d) => d * Math.PI / 180)
  .map((t) => ({ lon: lon + radius * Math.cos(t), lat: lat + radius * Math.sin(t) }))))

describe('GEO_CONTAINS on random polygons', () => {
  it('a convex polygon holds its vertex average and every convex combination of its vertices', () => {
    // Whole weights: a tiny float weight would underflow the combination to another point.
    fc.assert(fc.property(convex, fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 12, maxLength: 12 }),
      (ring, weights) => {
        const vertices = ring.slice(1)
        fc.pre(area(ring) > 1e-8)
        const wkt = wktOf([ring])
        const mean = (w: number[]): GeoPoint => {
          const total = vertices.reduce((s, _, i) => s + (w[i] ?? 0), 0)
          return {
            lon: vertices.reduce((s, v, i) => s + v.lon * (w[i] ?? 0), 0) / total,
            lat: vertices.reduce((s, v, i) => s + v.lat * (w[i] ?? 0), 0) / total
          }
        }
        expect(inside(wkt, mean(vertices.map(() => 1)))).toBe(true)
        fc.pre(weights.slice(0, vertices.length).some((w) => w > 0))
        expect(inside(wkt, mean(weights))).toBe(true)
      }), { numRuns: 1000 })
  })

  it('a square with a square hole holds a point exactly when it is in the square and not strictly in the hole', () => {
    const half = fc.integer({ min: -4, max: 24 }).map((n) => n / 2)
    const box = (x0: number, y0: number, x1: number, y1: number): GeoPoint[] =>
      closed([{ lon: x0, lat: y0 }, { lon: x1, lat: y0 }, { lon: x1, lat: y1 }, { lon: x0, lat: y1 }])
    fc.assert(fc.property(half, half, fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 8 }), (x, y, h0, h1) => {
      const lo = Math.min(h0, h1)
      const hi = Math.max(h0, h1) + 1
      const wkt = wktOf([box(0, 0, 10, 10), box(lo, lo, hi, hi)])
      const inSquare = x >= 0 && x <= 10 && y >= 0 && y <= 10
      const inHole = x > lo && x < hi && y > lo && y < hi
      expect(inside(wkt, { lon: x, lat: y })).toBe(inSquare && !inHole)
    }), { numRuns: 1000 })
  })

  it('any ring, self-crossing or not, answers the same whichever way it turns', () => {
    const grid = fc.record({ lon: fc.integer({ min: -5, max: 5 }), lat: fc.integer({ min: -5, max: 5 }) })
    fc.assert(fc.property(fc.array(grid, { minLength: 3, maxLength: 9 }), grid, (points, p) => {
      const ring = closed(points)
      expect(inside(wktOf([[...ring].reverse()]), p)).toBe(inside(wktOf([ring]), p))
    }), { numRuns: 2000 })
  })

  it('a text that is not a polygon holds nothing, and no text throws', () => {
    const valid = 'POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (4 4, 6 4, 6 6, 4 6, 4 4))'
    const damaged = fc.tuple(fc.nat(valid.length), fc.nat(3), fc.string({ maxLength: 3 }))
      .map(([at, cut, insert]) => valid.slice(0, at) + insert + valid.slice(at + cut))
    fc.assert(fc.property(fc.oneof(fc.string(), damaged), (wkt) => {
      const holds = inside(wkt, { lon: 2, lat: 2 })
      if (parseWktPolygon(wkt) === undefined) expect(holds).toBe(false)
    }), { numRuns: 3000 })
  })
})
