// console/src/pages/alerts/alert-text.ts and the API client's company: which alerts are open, the history newest first
// a page at a time within its range, an alert's values and the badge's words, the Alerts page's address, and the
// context company on the /api/v2 calls.
import { describe, expect, it } from 'vitest'
import { ApiClient } from '../../../console/src/lib/api.js'
import {
  acknowledgedByText, alertsPath, FETCH_SIZE, historyPage, historyQueries, isOpen, newestFirst, openCountText, openQuery, parseAlertsView, stateText, valuesText
} from '../../../console/src/pages/alerts/alert-text.js'
import type { Alert } from '../../../console/src/pages/alerts/types.js'

const alert = (uid: string, date: number, patch: Partial<Alert> = {}): Alert => ({
  uid,
  rule: { uid: 'r', name: 'Hot', message: null },
  target: { uid: 's', name: 'Pump' },
  date,
  closedDate: null,
  state: 'OPEN',
  acknowledged: false,
  acknowledgedBy: null,
  attributes: [],
  ...patch
})

describe('open alerts and the history', () => {
  it('counts as open an alert whose conditions hold and that nobody acknowledged', () => {
    expect(isOpen(alert('a', 1))).toBe(true)
    expect(isOpen(alert('a', 1, { acknowledged: true }))).toBe(false)
    expect(isOpen(alert('a', 1, { state: 'CLOSED', closedDate: 2 }))).toBe(false)
    expect(openQuery()).toEqual({ state: 'OPEN', acknowledged: 'false', size: FETCH_SIZE })
    expect(openQuery('s1')).toEqual({ state: 'OPEN', acknowledged: 'false', targetId: 's1', size: FETCH_SIZE })
  })

  it('orders newest first, alerts of the same time by uid', () => {
    expect(newestFirst([alert('b', 5), alert('c', 9), alert('a', 5)]).map((a) => a.uid)).toEqual(['c', 'a', 'b'])
  })

  it('pages the history without the open alerts, and shows the last page of a history that shrank', () => {
    const all = [alert('open', 100), ...Array.from({ length: 5 }, (_, i) => alert(`h${i}`, i, { state: 'CLOSED', closedDate: i + 1 }))]
    expect(historyPage(all, 0, 2)).toEqual({ items: [all[5], all[4]], count: 5, offset: 0 })
    expect(historyPage(all, 4, 2).items.map((a) => a.uid)).toEqual(['h0'])
    expect(historyPage(all, 40, 2)).toMatchObject({ offset: 4, count: 5 })
    expect(historyPage([], 20, 2)).toEqual({ items: [], count: 0, offset: 0 })
  })

  it('reads the closed alerts and the acknowledged open ones as far back as the range chosen, an unknown range being the week', () => {
    const day = 100_000_000 - 86_400_000
    expect(historyQueries('day', 100_000_000)).toEqual([
      { state: 'CLOSED', dateAfter: day, size: FETCH_SIZE }, { state: 'OPEN', acknowledged: 'true', dateAfter: day, size: FETCH_SIZE }
    ])
    expect(historyQueries('nonsense', 1_000_000_000, 's1')[0]).toEqual({ state: 'CLOSED', targetId: 's1', dateAfter: 1_000_000_000 - 7 * 86_400_000, size: FETCH_SIZE })
  })
})

describe('an alert in words', () => {
  it('lists the values that raised it, without DATA.', () => {
    expect(valuesText([
      { id: { name: 'DATA.engine.temp' }, value: { valueNum: 95.123456 } },
      { id: { name: 'system.commStatus' }, value: { valueStr: 'ERROR' } }
    ])).toBe('engine.temp = 95.1235, system.commStatus = ERROR')
    expect(valuesText([])).toBe('')
  })

  it('says how many alerts are open, and who acknowledged one', () => {
    expect([0, 1, 3, FETCH_SIZE].map(openCountText)).toEqual(['No open alert', '1 open alert', '3 open alerts', '500 or more open alerts'])
    const me = { uid: 'me', email: 'me@example.com' }
    expect(acknowledgedByText('me', me)).toBe('me@example.com')
    expect(acknowledgedByText('u1', me)).toBe('u1')
    expect(acknowledgedByText({ uid: 'u1', email: 'ops@example.com' }, me)).toBe('ops@example.com')
    expect(acknowledgedByText({ uid: 'me' }, me)).toBe('me@example.com')
    expect(acknowledgedByText({ uid: 'u1' }, me)).toBe('u1')
    expect(acknowledgedByText(null, me)).toBe('')
  })

  it('says its state for the history', () => {
    expect(stateText(alert('a', 1, { acknowledged: true }))).toBe('Open, acknowledged')
    expect(stateText(alert('a', 1, { state: 'CLOSED' }))).toBe('Closed')
    expect(stateText(alert('a', 1, { state: 'CLOSED', acknowledged: true }))).toBe('Closed, acknowledged')
  })
})

describe('the Alerts page\'s address', () => {
  it('keeps the system, range and offset, leaving out the defaults', () => {
    const view = parseAlertsView({ targetId: 's1', range: 'month', offset: '20' })
    expect(view).toEqual({ targetId: 's1', range: 'month', offset: 20 })
    expect(alertsPath(view)).toBe('/alerts?targetId=s1&range=month&offset=20')
    expect(alertsPath(parseAlertsView({}))).toBe('/alerts')
    expect(parseAlertsView({ range: 'year', offset: '-3' })).toEqual({ targetId: '', range: 'week', offset: 0 })
    expect(parseAlertsView({ offset: 'x' }).offset).toBe(0)
  })
})

describe('the context company on the alert calls', () => {
  it('is added to /api/v2 calls as to /api/v1 ones, and not to others', () => {
    const api = new ApiClient({ token: async () => undefined, refresh: async () => '', company: () => 'c1', onSignedOut: () => {} })
    expect(api.url('/api/v2/alerts', { state: 'OPEN' })).toBe('/api/v2/alerts?state=OPEN&company=c1')
    expect(api.url('/api/v2/alertrules')).toBe('/api/v2/alertrules?company=c1')
    expect(api.url('/api/v1/systems')).toBe('/api/v1/systems?company=c1')
    expect(api.url('/api/oauth/token')).toBe('/api/oauth/token')
  })
})
