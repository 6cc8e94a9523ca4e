// The map beside the table: the systems matching the filters (not only this page) that have a position, fitted to
// their bounds. docs/api.md#limits: one list call reads at most 500 systems; beyond, the map says so.
import { h, replace } from '../../lib/dom.js'
import { worldMap, type MapMarker } from '../../lib/map.js'
import { positionOf } from '../../lib/map-projection.js'
import type { PageContext } from '../../page.js'
import { fleetFilters, type FleetQuery } from './query.js'

interface Located { uid: string, name?: string | null, commStatus?: string | null, data?: Record<string, unknown> | null }
interface ListAnswer<T> { items: T[], count: number }

const MAP_SIZE = 500

export function mapPanel (ctx: Pick<PageContext, 'api'>, q: FleetQuery, alive: () => boolean, onError: (err: unknown) => void): HTMLElement {
  const note = h('p', { class: 'map-note', 'aria-live': 'polite' }, 'Loading the map…')
  const box = h('div', { class: 'map-box', 'aria-busy': 'true' })
  const el = h('section', { class: 'fleet-map', 'aria-labelledby': 'fleet-map-title' }, h('h2', { id: 'fleet-map-title' }, 'Map'), box, note)
  ctx.api.get<ListAnswer<Located>>('/api/v1/systems', { ...fleetFilters(q), fields: 'uid,name,commStatus,data', size: MAP_SIZE, offset: 0 })
    .then((answer) => {
      if (!alive()) return
      const markers: MapMarker[] = []
      for (const s of answer.items) {
        const position = positionOf(s.data)
        if (position !== null) markers.push({ uid: s.uid, name: s.name ?? s.uid, status: s.commStatus, position })
      }
      replace(box, worldMap(markers, (uid) => `#/systems/${encodeURIComponent(uid)}`))
      box.setAttribute('aria-busy', 'false')
      const read = answer.items.length < answer.count ? ` (the first ${answer.items.length} of ${answer.count} read)` : ''
      note.textContent = markers.length === 0
        ? `No system here has a position yet${read}: devices report it as _LATITUDE and _LONGITUDE.`
        : `${markers.length} system${markers.length === 1 ? '' : 's'} with a position${read}. Select a dot to open its system.`
    }, (err: unknown) => {
      if (!alive()) return
      box.setAttribute('aria-busy', 'false')
      note.textContent = 'The map could not be loaded.'
      onError(err)
    })
  return el
}
