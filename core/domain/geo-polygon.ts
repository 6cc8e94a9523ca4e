// The geometry of the GEO_CONTAINS alert operator (docs/alerts.md): a WKT polygon, a device's position, and whether
// the polygon holds the position. Pure, and never throws: a text that is not a polygon or a position reads as
// undefined, which the evaluator takes as a condition that does not hold.
//
// Semantics, as the docs may quote them:
// - A polygon is WKT `POLYGON((lon lat, lon lat, ...), (hole), ...)`: the keyword in any case, one outer ring then
//   any number of holes, each ring at least 4 points and closed (its last point equal to its first), each point
//   exactly two decimal numbers, longitude first, within -180..180 and latitude -90..90. Anything else (EMPTY,
//   MULTIPOLYGON, a third coordinate, an open ring, a latitude of 95) is not a polygon. Reading is linear in the
//   text's length whatever it holds (no backtracking pattern), as rules come from API clients.
// - Coordinates are plain x/y on the longitude/latitude plane: edges are straight lines in degrees, not great
//   circles, and a polygon crossing the antimeridian (±180°) is not supported (write it as two rules).
// - A point on the boundary (within 1e-9 degree, about 0.1 mm, of an edge of the outer ring or of a hole) is inside.
//   A point strictly inside a hole is outside.
// - A position is "lon,lat" or "lon lat" (spaces around the comma allowed), longitude first as in WKT.

export interface GeoPoint { lon: number, lat: number }

/** The outer ring, then the holes; each ring closed (its last point repeats its first). */
export interface GeoPolygon { rings: readonly (readonly GeoPoint[])[] }

// Strict decimal numbers only: "0x10", "Infinity", "" or "1_000" are not coordinates.
const DECIMAL = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/

/** The number a decimal literal (surrounding spaces allowed) writes, or undefined. */
export function decimalOf (text: string): number | undefined {
  const trimmed = text.trim()
  if (!DECIMAL.test(trimmed)) return undefined
  const n = Number(trimmed)
  return Number.isFinite(n) ? n : undefined
}

function pairOf (parts: readonly string[]): GeoPoint | undefined {
  if (parts.length !== 2) return undefined
  const lon = decimalOf(parts[0] ?? '')
  const lat = decimalOf(parts[1] ?? '')
  return lon === undefined || lat === undefined ? undefined : { lon, lat }
}

// A polygon's point: two numbers apart by spaces, a longitude and a latitude that can be (so that a polygon written
// lat-first, or past the antimeridian, is refused when the rule is saved rather than never holding).
function pointOf (text: string): GeoPoint | undefined {
  const point = pairOf(text.trim().split(/\s+/))
  return point !== undefined && Math.abs(point.lon) <= 180 && Math.abs(point.lat) <= 90 ? point : undefined
}

function ringOf (text: string): GeoPoint[] | undefined {
  const points: GeoPoint[] = []
  for (const part of text.split(',')) {
    const point = pointOf(part)
    if (point === undefined) return undefined
    points.push(point)
  }
  const first = points[0]
  const last = points[points.length - 1]
  if (points.length < 4 || first === undefined || last === undefined) return undefined
  return first.lon === last.lon && first.lat === last.lat ? points : undefined
}

// `POLYGON ( ring , ring ... )` where a ring is `( ...no parentheses... )`: no nested quantifier can backtrack.
const POLYGON = /^\s*POLYGON\s*\(\s*(\([^()]*\)(?:\s*,\s*\([^()]*\))*)\s*\)\s*$/i
const RING = /\(([^()]*)\)/g

/** The polygon a WKT text writes, or undefined when it is not one (see the rules above). */
export function parseWktPolygon (wkt: string): GeoPolygon | undefined {
  const body = POLYGON.exec(wkt)?.[1]
  if (body === undefined) return undefined
  const rings: GeoPoint[][] = []
  for (const match of body.matchAll(RING)) {
    const ring = ringOf(match[1] ?? '')
    if (ring === undefined) return undefined
    rings.push(ring)
  }
  return rings.length > 0 ? { rings } : undefined
}

/** A position written "lon,lat" or "lon lat", or undefined. */
export function parseLonLat (text: string): GeoPoint | undefined {
  return pairOf(text.trim().split(/\s*,\s*|\s+/))
}

/** How close to an edge (degrees) a point counts as on it: far below any GPS's precision, far above rounding. */
export const EDGE_TOLERANCE = 1e-9

function onSegment (p: GeoPoint, a: GeoPoint, b: GeoPoint): boolean {
  const dx = b.lon - a.lon
  const dy = b.lat - a.lat
  const length2 = dx * dx + dy * dy
  const t = length2 === 0 ? 0 : Math.min(1, Math.max(0, ((p.lon - a.lon) * dx + (p.lat - a.lat) * dy) / length2))
  const ex = a.lon + t * dx - p.lon
  const ey = a.lat + t * dy - p.lat
  return ex * ex + ey * ey <= EDGE_TOLERANCE * EDGE_TOLERANCE
}

type Placement = 'inside' | 'edge' | 'outside'

// Crossing number: a ray from the point towards +longitude crosses a closed ring an odd number of times from inside.
// Each edge counts for the latitudes of its half-open span, so a ray through a vertex is counted once.
function placeIn (p: GeoPoint, ring: readonly GeoPoint[]): Placement {
  let inside = false
  for (let i = 1; i < ring.length; i++) {
    const a = ring[i - 1] as GeoPoint
    const b = ring[i] as GeoPoint
    if (onSegment(p, a, b)) return 'edge'
    if ((a.lat > p.lat) !== (b.lat > p.lat) &&
      p.lon < a.lon + (b.lon - a.lon) * (p.lat - a.lat) / (b.lat - a.lat)) inside = !inside
  }
  return inside ? 'inside' : 'outside'
}

/** Whether the polygon holds the point: inside its outer ring and in none of its holes, its boundary included. */
export function polygonContains (polygon: GeoPolygon, point: GeoPoint): boolean {
  const [outer, ...holes] = polygon.rings
  if (outer === undefined) return false
  const placement = placeIn(point, outer)
  if (placement !== 'inside') return placement === 'edge'
  for (const hole of holes) {
    const inHole = placeIn(point, hole)
    if (inHole === 'edge') return true
    if (inHole === 'inside') return false
  }
  return true
}
