// The fleet map: an SVG world drawn from world-atlas land-110m through topojson-client, bundled with the
// console (no tile server, nothing from a CDN), and one dot per system with a position, coloured by commStatus.
// Each dot is a link to the system, so it is reachable with Tab and opens with Enter as well as with a click.
import { feature } from 'topojson-client'
import land from 'world-atlas/land-110m.json'
import { commStatusClass, COMM_STATUS_TEXT } from './comm-status.js'
import { fitView, project, ringsPath, type LonLat, type View } from './map-projection.js'
import './map.css'

const SVG = 'http://www.w3.org/2000/svg'
/** Width over height of the map: the world between 72° N and 58° S is about 1.7 wide for 1 high in Mercator. */
const ASPECT = 1.8

export interface MapMarker { uid: string, name: string, status: string | null | undefined, position: LonLat }

function svg<K extends keyof SVGElementTagNameMap> (tag: K, attrs: Record<string, string | number> = {}): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag)
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v))
  return el
}

let landPath: string | null = null

/** The land as one path, projected once per page load (about 60 KB of TopoJSON). */
function landD (): string {
  if (landPath !== null) return landPath
  const geo = feature(land, land.objects.land as Parameters<typeof feature>[1])
  const features = 'features' in geo ? geo.features : [geo]
  const parts: string[] = []
  for (const f of features) {
    const g = f.geometry
    if (g?.type === 'Polygon') parts.push(ringsPath(g.coordinates))
    else if (g?.type === 'MultiPolygon') for (const poly of g.coordinates) parts.push(ringsPath(poly))
  }
  landPath = parts.join('')
  return landPath
}

/** A world map fitted to the markers; `href(uid)` is where a dot leads (the system's page). */
export function worldMap (markers: readonly MapMarker[], href: (uid: string) => string): SVGSVGElement {
  const view: View = fitView(markers.map((m) => m.position), ASPECT)
  const root = svg('svg', {
    class: 'world-map',
    viewBox: `${view.x} ${view.y} ${view.width} ${view.height}`,
    preserveAspectRatio: 'xMidYMid meet',
    role: 'group',
    'aria-label': `Map of ${markers.length} system${markers.length === 1 ? '' : 's'} with a position`
  })
  root.append(svg('rect', { class: 'world-sea', x: view.x, y: view.y, width: view.width, height: view.height }))
  root.append(svg('path', { class: 'world-land', d: landD() }))
  // A dot stays the same size on screen whatever the zoom: its radius is a share of the view's width.
  const r = view.width / 90
  // Errors last, so that they are drawn on top of their neighbours.
  const order = ['UNDEFINED', 'OK', 'WARNING', 'ERROR']
  const sorted = [...markers].sort((a, b) => order.indexOf(a.status ?? 'UNDEFINED') - order.indexOf(b.status ?? 'UNDEFINED'))
  for (const m of sorted) {
    const [x, y] = project(m.position)
    const status = COMM_STATUS_TEXT[m.status ?? 'UNDEFINED'] ?? 'Unknown'
    const link = svg('a', { href: href(m.uid), class: `map-dot ${commStatusClass(m.status)}`, 'aria-label': `${m.name} (${status})` })
    const title = svg('title')
    title.textContent = `${m.name}: ${status}`
    link.append(title, svg('circle', { cx: x, cy: y, r }))
    root.append(link)
  }
  return root
}
