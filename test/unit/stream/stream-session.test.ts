// One live stream's subscriptions (core/services/stream/stream-session.ts) on fakes of the repositories: the bound
// on the systems a stream holds, and what it sends of an event: only its company's, only with the right, only what
// a subscription follows.
import { describe, expect, it } from 'vitest'
import { createStreamSession, MAX_RESOLVED, VIEW_RIGHT, type ServerMessage } from '../../../core/services/stream/stream-session.js'
import { parseCommand } from '../../../core/services/stream/commands.js'
import type { FleetEvent } from '../../../core/ports/events.js'
import { isFleetError } from '../../../core/errors.js'

const uids = (n: number, prefix = 'u'): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`)

function session (rights = [VIEW_RIGHT], labelled = 0) {
  const sent: ServerMessage[] = []
  const s = createStreamSession({
    systems: {
      // The company's systems: those named by uid, and `labelled` systems with any label.
      async findUids (_company, criteria, limit) {
        const found = criteria.uids ?? uids(labelled, 'l')
        return found.slice(0, limit)
      }
    },
    operations: { findInCompany: async () => undefined, counts: async () => new Map() }
  }, { companyUid: 'c1', rights: new Set(rights) }, (m) => { sent.push(m) })
  const run = async (cmd: object): Promise<ServerMessage[] | string> => {
    try { return await s.handle(parseCommand(JSON.stringify(cmd))) } catch (err) { if (isFleetError(err)) return err.code; throw err }
  }
  return { s, sent, run }
}

const message = (company: string, system: string): FleetEvent => ({ kind: 'message', company, system, uid: 'm1', protocol: 'MQTT', timestamp: 1, points: [{ dataId: 'temp', ts: 1, v: 2 }, { dataId: 'hum', ts: 1, v: 3 }] })

describe('a stream session', () => {
  it('follows at most MAX_RESOLVED systems by name, all its subscriptions together', async () => {
    const { run } = session([VIEW_RIGHT], MAX_RESOLVED - 150)
    expect(await run({ action: 'subscribe', systems: { label: 'a' } })).toMatchObject([{ event: 'subscribed', systems: MAX_RESOLVED - 150 }])
    expect(await run({ action: 'subscribe', systems: { uids: uids(100) } })).toMatchObject([{ event: 'subscribed', systems: 100 }])
    expect(await run({ action: 'subscribe', systems: { uids: uids(51, 'x') } })).toBe('request.invalid')
    expect(await run({ action: 'subscribe', systems: { uids: uids(50, 'x') } })).toMatchObject([{ event: 'subscribed', systems: 50 }])
    expect(await run({ action: 'subscribe', systems: { criteria: {} } })).toMatchObject([{ event: 'subscribed', systems: null }])
  })

  it('sends only its company\'s events, with the right, of the systems and data ids it follows', async () => {
    const { s, sent, run } = session()
    await run({ action: 'subscribe', systems: { uids: ['u1'] }, dataIds: ['temp'] })
    s.deliver(message('c2', 'u1'))
    s.deliver(message('c1', 'u2'))
    expect(sent).toEqual([])
    s.deliver(message('c1', 'u1'))
    expect(sent).toEqual([
      { event: 'message', system: 'u1', uid: 'm1', protocol: 'MQTT', timestamp: 1 },
      { event: 'points', system: 'u1', dataId: 'temp', ts: 1, v: 2 }
    ])
    s.setAccess({ companyUid: 'c1', rights: new Set() })
    s.deliver(message('c1', 'u1'))
    expect(sent).toHaveLength(2)
    expect(await run({ action: 'subscribe', operations: { all: true } })).toBe('missing.rights')
  })

  it('sends an alert of a system it follows, whatever data ids it asked for', async () => {
    const { s, sent, run } = session()
    await run({ action: 'subscribe', systems: { uids: ['u1'] }, dataIds: ['hum'] })
    const alert = (system: string): FleetEvent => ({ kind: 'alert', company: 'c1', system, uid: 'a1', rule: 'r1', ruleName: 'Hot', date: 5 })
    s.deliver(alert('u2'))
    s.deliver(alert('u1'))
    expect(sent).toEqual([{ event: 'alert', system: 'u1', uid: 'a1', rule: 'r1', ruleName: 'Hot', date: 5 }])
  })
})
