// console/src/pages/fleet/install.ts: the install dialog offers the published applications that name an update path,
// and posts docs/packages.md#installs' body.
import { describe, expect, it } from 'vitest'
import { installable, installRequest } from '../../../console/src/pages/fleet/install.js'

describe('installing from the fleet page', () => {
  it('offers the PUBLISHED applications with an update path, by name and newest revision first', () => {
    const apps = [
      { uid: 'r', name: 'Greenhouse', type: 'gh', revision: '3.0.0', state: 'RELEASED', applicationManager: 'MQTT_SW' },
      { uid: 'a', name: 'Greenhouse', type: 'gh', revision: '2.9.0', state: 'PUBLISHED', applicationManager: 'MQTT_SW' },
      { uid: 'b', name: 'Greenhouse', type: 'gh', revision: '2.10.0', state: 'PUBLISHED', applicationManager: 'MQTT_SW' },
      { uid: 'c', name: 'Agent', type: 'ag', revision: '1', state: 'PUBLISHED', applicationManager: 'MIHINI_APPCON' },
      { uid: 'g', name: 'Generic MQTT', type: 'gen', revision: '1', state: 'PUBLISHED', applicationManager: null },
      { uid: 'd', name: 'Old', type: 'old', revision: '1', state: 'DEPRECATED', applicationManager: 'MQTT_SW' }
    ]
    expect(installable(apps).map((a) => a.uid)).toEqual(['c', 'b', 'a'])
  })

  it('posts the application and the selection', () => {
    expect(installRequest({ uids: ['s1'] }, 'app', true)).toEqual({
      path: '/api/v1/operations/systems/applications/install', body: { application: 'app', systems: { uids: ['s1'] }, requestConnection: true }
    })
    expect(installRequest({ criteria: { labels: ['north'] } }, 'app', false).body.systems).toEqual({ criteria: { labels: ['north'] } })
  })
})
