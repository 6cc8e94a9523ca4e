// ingest/mqtt/registry.ts: the one registry of MQTT connections, both versions, latest first; client id claims.
import { describe, expect, it } from 'vitest'
import { createConnectionRegistry, type MqttConnection, type MqttVersion } from '../../../ingest/mqtt/registry.js'

function conn (systemUid: string, version: MqttVersion, clientId: string, opts: { subscribed?: boolean } = {}): MqttConnection & { sent: string[], closedWith: Array<{ takenOver?: boolean } | undefined> } {
  const sent: string[] = []
  const closedWith: Array<{ takenOver?: boolean } | undefined> = []
  let subscribed = opts.subscribed ?? false
  return {
    session: { systemUid, companyUid: 'c', username: `${systemUid}-login` },
    version,
    clientId,
    sent,
    closedWith,
    wantsTasks: () => subscribed,
    sendTasks: async (payload) => { sent.push(payload); subscribed = true },
    close: (o) => { closedWith.push(o) }
  }
}

describe('connections by system', () => {
  it('answers the latest connection that subscribed to its tasks, whatever its version', () => {
    const r = createConnectionRegistry()
    const old5 = conn('s1', '5', 'a', { subscribed: true })
    const mid311 = conn('s1', '3.1.1', 'b', { subscribed: true })
    const idle5 = conn('s1', '5', 'c')
    for (const c of [old5, mid311, idle5]) r.add(c)
    expect(r.subscribed('s1')).toBe(mid311) // the newest is not subscribed
    r.remove(mid311)
    expect(r.subscribed('s1')).toBe(old5)
    expect(r.subscribed('s2')).toBeUndefined()
  })

  it('knows a system connected until its last connection goes', () => {
    const r = createConnectionRegistry()
    const a = conn('s1', '3.1.1', 'a')
    const b = conn('s1', '5', 'b')
    r.add(a)
    r.add(b)
    r.add(a) // added twice: counted once
    expect(r.connected('s1')).toBe(true)
    r.remove(a)
    expect(r.connected('s1')).toBe(true)
    r.remove(b)
    r.remove(b) // removed twice: nothing more
    expect(r.connected('s1')).toBe(false)
    expect(r.counts()).toEqual([{ version: '3.1.1', count: 0 }, { version: '5', count: 0 }])
  })

  it('counts connections by version', () => {
    const r = createConnectionRegistry()
    for (const c of [conn('s1', '3.1.1', 'a'), conn('s2', '3.1.1', 'b'), conn('s2', '5', 'c')]) r.add(c)
    expect(r.counts()).toEqual([{ version: '3.1.1', count: 2 }, { version: '5', count: 1 }])
    expect(r.all()).toHaveLength(3)
  })
})

describe('client ids (conventions.md §Devices: free, one device never pushes another off)', () => {
  for (const version of ['3.1.1', '5'] as const) {
    it(`${version}: an id is scoped to its system; another system's is free, the same system takes it over`, () => {
      const r = createConnectionRegistry()
      const held = conn('s1', version, 'shared')
      r.add(held)
      expect(r.claim('s2', 'shared')).toEqual({ kind: 'free' })
      expect(r.claim('s1', 'shared')).toEqual({ kind: 'take-over', holder: held })
      expect(r.claim('s1', 'other')).toEqual({ kind: 'free' })
    })
  }

  it('another system holding the same id is left alone when the first one goes', () => {
    const r = createConnectionRegistry()
    const a = conn('s1', '3.1.1', 'shared')
    const b = conn('s2', '3.1.1', 'shared')
    r.add(a)
    r.add(b)
    r.remove(a)
    expect(r.claim('s2', 'shared')).toEqual({ kind: 'take-over', holder: b })
    expect(r.claim('s1', 'shared')).toEqual({ kind: 'free' })
  })

  it('a connection of another MQTT version of the same system takes the id over', () => {
    const r = createConnectionRegistry()
    const old = conn('s1', '3.1.1', 'id')
    r.add(old)
    expect(r.claim('s1', 'id')).toEqual({ kind: 'take-over', holder: old })
  })

  it('a connection taken over leaves the id to the newer one when it goes', () => {
    const r = createConnectionRegistry()
    const first = conn('s1', '5', 'id')
    const second = conn('s1', '5', 'id')
    r.add(first)
    r.add(second)
    r.remove(first) // the old one's close arrives after the new one is in
    expect(r.claim('s1', 'id')).toEqual({ kind: 'take-over', holder: second })
  })

  it('an empty id (MQTT 5.0 §3.1.3.1) takes nothing over', () => {
    const r = createConnectionRegistry()
    r.add(conn('s1', '5', ''))
    expect(r.claim('s1', '')).toEqual({ kind: 'free' })
  })
})
