// Device tasks → reply Messages (ingest/m3da/tasks.ts; docs/protocols/m3da.md).
import { describe, expect, it } from 'vitest'
import { taskMessages, type ActionKind } from '../../../ingest/m3da/tasks.js'

const generic = (id: string): ActionKind | undefined => ({ 'system.reboot': 'REBOOT', 'system.reset': 'RESET', 'system.connect': 'CONNECT' } as Record<string, ActionKind>)[id]
const T = 1_700_000_000_000

describe('M3DA task Messages', () => {
  it('reboot, reset and wake-up run the agent commands with a ticket and a non-empty body', () => {
    expect(taskMessages({ uid: 'u1', timestamp: T, command: { id: 'system.reboot', params: {} } }, 7, generic))
      .toEqual([{ kind: 'message', path: '@sys.commands.Reboot', ticketId: 7, body: { delay: 0 } }])
    expect(taskMessages({ uid: 'u1', timestamp: T, command: { id: 'system.reset', params: {} } }, 8, generic)[0]?.path).toBe('@sys.commands.ResetToFactoryDefault')
    expect(taskMessages({ uid: 'u1', timestamp: T, command: { id: 'system.connect', params: {} } }, 9, generic)[0]?.path).toBe('@sys.commands.Connect')
  })

  it('a retrieve is ReadNode of the tree paths', () => {
    expect(taskMessages({ uid: 'u', timestamp: T, read: ['_RSSI', 'config.apn', 'greenhouse.temperature'] }, 3, generic)).toEqual([{
      kind: 'message', path: '@sys.commands.ReadNode', ticketId: 3, body: { 1: 'system.cellular.link.rssi', 2: 'config.apn', 3: 'greenhouse.temperature' }
    }])
  })

  it('settings are writes under their paths, one Message per path', () => {
    expect(taskMessages({ uid: 'u', timestamp: T, write: [{ 'config.apn': 'iot' }, { 'config.reportPeriodS': 60 }, { 'greenhouse.threshold': 3.5 }] }, 4, generic)).toEqual([
      { kind: 'message', path: '@sys.config', ticketId: 4, body: { apn: 'iot', reportPeriodS: 60 } },
      { kind: 'message', path: 'greenhouse', ticketId: 4, body: { threshold: 3.5 } }
    ])
  })

  it('a command that is no action is a write to its path with its parameters', () => {
    expect(taskMessages({ uid: 'u', timestamp: T, command: { id: 'greenhouse.open', params: { angle: 30, how: { a: 1 } } } }, 5, generic))
      .toEqual([{ kind: 'message', path: 'greenhouse.open', ticketId: 5, body: { angle: 30, how: '{"a":1}' } }])
  })
})
