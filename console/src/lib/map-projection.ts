// The fleet map's geometry ("a map of the systems with a position", no tile server): a Web Mercator
// projection in degree-like units (x = longitude, y grows southwards), the view fitted to the fleet, and land
// polygons as SVG path text. No DOM here (tested in test/unit/console/map-projection.test.ts).

export type LonLat = [number, number]
export interface View { x: number, y: number, width: number, height: number }

/** Mercator runs to infinity at the poles; beyond ±85° nothing a fleet needs is drawn (Antarctica is clipped). */
const MAX_LAT = 85
const RAD = Math.PI / 180

/** A longitude/latitude to map units: x is the longitude, y the Mercator ordinate in degrees, negated (SVG y is down). */
export function project ([lon, lat]: LonLat): [number, number] {
  const phi = Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * RAD
  return [lon, -Math.log(Math.tan(Math.PI / 4 + phi / 2)) / RAD]
}

/** The whole world from 72° N to 58° S: where people and devices are. */
export const WORLD_VIEW: Readonly<View> = Object.freeze(viewOf([[-180, 72], [180, -58]]))

function viewOf (corners: LonLat[]): View {
  const pts = corners.map(project)
  const xs = pts.map((p) => p[0])
  const ys = pts.map((p) => p[1])
  const x = Math.min(...xs)
  const y = Math.min(...ys)
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y }
}

export interface FitOptions {
  /** Share of the fleet's extent added on each side. */
  padding?: number
  /** The smallest width shown, in map units (degrees of longitude): a fleet in one town still shows its country's shape. */
  minWidth?: number
}

/**
 * The view that shows every point with some margin, with the given width/height ratio, never wider than the world;
 * the world view when there is no point.
 */
export function fitView (points: readonly LonLat[], aspect: number, opts: FitOptions = {}): View {
  if (points.length === 0 || !(aspect > 0)) return { ...WORLD_VIEW }
  const padding = opts.padding ?? 0.1
  const minWidth = opts.minWidth ?? 30
  const pts = points.map(project)
  const minX = Math.min(...pts.map((p) => p[0]))
  const maxX = Math.max(...pts.map((p) => p[0]))
  const minY = Math.min(...pts.map((p) => p[1]))
  const maxY = Math.max(...pts.map((p) => p[1]))
  let width = Math.max((maxX - minX) * (1 + 2 * padding), minWidth)
  let height = Math.max((maxY - minY) * (1 + 2 * padding), minWidth / aspect)
  // Widen the narrower side to the ratio so the map is not distorted.
  if (width / height < aspect) width = height * aspect
  else height = width / aspect
  if (width > 360) { width = 360; height = 360 / aspect }
  const cx = (minX + maxX) / 2
  const cy = (minY + maxY) / 2
  const x = Math.max(-180, Math.min(180 - width, cx - width / 2))
  return { x, y: cy - height / 2, width, height }
}

const round = (n: number): number => Math.round(n * 100) / 100

/** The rings of a polygon (GeoJSON order: lon, lat) as an SVG path: one closed sub-path each. */
export function ringsPath (rings: ReadonlyArray<ReadonlyArray<readonly number[]>>): string {
  const parts: string[] = []
  for (const ring of rings) {
    const pts = ring.map((c) => project([c[0] ?? 0, c[1] ?? 0]))
    if (pts.length < 3) continue
    parts.push('M' + pts.map(([x, y]) => `${round(x)},${round(y)}`).join('L') + 'Z')
  }
  return parts.join('')
}

/** A number, or text that is one (devices send either); anything else is not a coordinate. */
function degrees (v: unknown): number {
  if (typeof v === 'number') return v
  return typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN
}

/**
 * Where a system is, from its system data (docs/devices.md: latitude, longitude in signed degrees); null
 * when it has none, when a value is out of range, or at exactly 0,0 (what a GPS without a fix commonly reports).
 */
export function positionOf (data: Record<string, unknown> | null | undefined): LonLat | null {
  const lat = degrees(data?.latitude)
  const lon = degrees(data?.longitude)
  if (!Number.isFinite(lat) || !Number.isFinite(lon)) return null
  if (Math.abs(lat) > 90 || Math.abs(lon) > 180) return null
  if (lat === 0 && lon === 0) return null
  return [lon, lat]
}
