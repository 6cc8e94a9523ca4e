import { describe, expect, it } from 'vitest'
import { COLUMNS, DEFAULT_COLUMNS, fieldsFor, loadColumns, saveColumns, type KeyValueStore } from '../../../console/src/pages/fleet/columns.js'

function memoryStore (): KeyValueStore & { data: Map<string, string> } {
  const data = new Map<string, string>()
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => { data.set(k, v) } }
}

describe('fleet columns', () => {
  it('starts from the defaults and keeps the choice in the store, in the table order', () => {
    const store = memoryStore()
    expect(loadColumns(store).map((c) => c.id)).toEqual([...DEFAULT_COLUMNS])
    saveColumns(store, COLUMNS.filter((c) => ['rssi', 'name', 'imei'].includes(c.id)))
    expect(loadColumns(store).map((c) => c.id)).toEqual(['name', 'imei', 'rssi'])
  })

  it('falls back to the defaults on an unreadable or empty choice, and without storage', () => {
    const store = memoryStore()
    store.setItem('fleet.console.fleetColumns', '{not json')
    expect(loadColumns(store).map((c) => c.id)).toEqual([...DEFAULT_COLUMNS])
    store.setItem('fleet.console.fleetColumns', '["gone"]')
    expect(loadColumns(store).map((c) => c.id)).toEqual([...DEFAULT_COLUMNS])
    expect(loadColumns(null).map((c) => c.id)).toEqual([...DEFAULT_COLUMNS])
  })

  it('asks only for the fields the columns read, plus uid, name and commStatus', () => {
    const cols = COLUMNS.filter((c) => ['serialNumber', 'imei', 'rssi'].includes(c.id))
    expect(fieldsFor(cols)).toEqual(['uid', 'name', 'commStatus', 'gateway', 'data'])
  })

  it('reads each cell from the list answer, empty when the field is missing', () => {
    const row = { uid: 'u1', gateway: { serialNumber: 'LL01', imei: null }, labels: ['a', 'b'], data: { rssi: -71 } }
    const text = (id: string): string => COLUMNS.find((c) => c.id === id)?.text(row) ?? 'missing column'
    expect(text('serialNumber')).toBe('LL01')
    expect(text('imei')).toBe('')
    expect(text('labels')).toBe('a, b')
    expect(text('rssi')).toBe('-71')
    expect(text('identifier')).toBe('')
    expect(text('lastCommDate')).toBe('')
  })
})
