// Device tasks → reply Messages (ingest/m3da/tasks.ts; docs/protocols/m3da.md).
import { describe, expect, it } from 'vitest'
import { responseMessage, taskMessages, type ActionKind } from '../../../ingest/m3da/tasks.js'
import { encodePayload, decodePayload } from '../../../protocols/m3da/index.js'
import type { SoftwareBody } from '../../../core/domain/software-task.js'

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

  const software = (action: SoftwareBody['software']['action']): SoftwareBody => ({
    software: {
      action,
      application: { uid: 'a1', type: 'greenhouse', name: 'Greenhouse', revision: '2.0' },
      manager: 'MIHINI_APPCON',
      binaries: action !== 'install' ? [] : [{ file: 'gh.tar', revision: null, type: null, size: 4, sha256: 'ab'.repeat(32), md5: '0123456789abcdef0123456789abcdef', url: 'http://h/device/packages/tok' }]
    }
  })

  it('an install is @sys.commands {SoftwareUpdate = {url, signature}}, a map in the body that Bysant carries', () => {
    const out = taskMessages({ uid: 'u', timestamp: T, ...software('install') }, 6, generic)
    expect(out).toEqual([{ kind: 'message', path: '@sys.commands', ticketId: 6, body: { SoftwareUpdate: { url: 'http://h/device/packages/tok', signature: '0123456789abcdef0123456789abcdef' } } }])
    const decoded = decodePayload(encodePayload(out))
    const update = decoded.ok ? (decoded.objects[0] as { body: Map<string, Map<string, Buffer>> }).body.get('SoftwareUpdate') : undefined
    expect(update?.get('url')?.toString()).toBe('http://h/device/packages/tok')
    expect(update?.get('signature')?.toString()).toBe('0123456789abcdef0123456789abcdef')
  })

  it('uninstall, start and stop have no Message (the agent takes software as update packages only)', () => {
    for (const action of ['uninstall', 'start', 'stop'] as const) expect(taskMessages({ uid: 'u', timestamp: T, ...software(action) }, 6, generic)).toEqual([])
  })
})

describe('M3DA Response messages', () => {
  it('name the status, the update error code\'s meaning and the agent\'s data', () => {
    expect(responseMessage(553, 'signature differs')).toBe('status 553 (MD5 mismatch): signature differs')
    expect(responseMessage(552, null)).toBe('status 552 (download retries exhausted)')
    expect(responseMessage(555, '')).toBe('status 555 (no space left)')
    expect(responseMessage(556, 'no Manifest')).toBe('status 556 (invalid update package): no Manifest')
    expect(responseMessage(-1, 'apn locked')).toBe('apn locked')
    expect(responseMessage(-1, null)).toBe('status -1')
  })
})
