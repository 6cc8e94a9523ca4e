// Device operations over M3DA (docs/protocols/m3da.md; docs/devices.md):
// an operation created through the REST API reaches the device in the reply to its next envelope, as a ticketed
// Message (reboot @sys.commands.Reboot, settings as writes under their paths, retrieve @sys.commands.ReadNode); the
// device's Response ends it (status 0 SUCCESS, else FAILURE with its data); a task not answered goes out again at
// the next session.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { M3daMessage, M3daObject } from '../../../protocols/m3da/index.js'
import { GENERIC_SETTINGS } from '../../../core/domain/generic-applications.js'
import type { Stack } from '../../helpers/stack.js'
import { eventually } from '../../helpers/eventually.js'
import { allTasks, getOperation, started, until, waitFinished, type Json } from '../../helpers/operations.js'
import { deviceTasksOf } from '../operations/device/reboot-fixtures.js'
import { httpLink, SecureDevice, sendUnsecured, tcpLink, type Link, type Outgoing } from './m3da-device.js'
import { m3daSystem, startM3daStack, type M3daSystem } from './m3da-fixtures.js'

let stack: Stack
let open: string
let generic: string
beforeAll(async () => { ({ stack, open, generic } = await startM3daStack()) }, 120_000)
afterAll(async () => { await stack?.close() })

const operation = async (kind: string, body: Json): Promise<string> =>
  await started(stack.call(stack.adminToken, { method: 'POST', url: `/api/v1/operations/systems/${kind}`, payload: body }))

const messages = (objects: M3daObject[]): M3daMessage[] => objects.filter((o): o is M3daMessage => o.kind === 'message')

/** The device's side: how it sends a package (unsecured or signed) on a link. */
type Send = (objects: Outgoing[]) => Promise<M3daObject[]>

/** Sends keep-alives until the reply carries Messages (the operation's device task is written asynchronously, by a
 * worker, and pushed to the connection: see the race tested at the end of this file). */
async function tasksReceived (send: Send): Promise<M3daMessage[]> {
  let got: M3daMessage[] = []
  await until('the task in a reply', async () => {
    got = messages(await send([]))
    return got.length > 0
  }, 30_000)
  return got
}

// The device operations reach an M3DA system with a password, a registration password, or an application that
// admits agents without security (`authentication: "none"`, core/operations/device/targets.ts hasCommIdentifiers):
// the unsecured agent's system here holds no M3DA secret at all.
const openSystem = async (): Promise<M3daSystem> => await m3daSystem(stack, { applications: [open] })

const unsecured = (link: Link, s: M3daSystem): Send => async (objects) => (await sendUnsecured(link, s.serial, objects)).objects

describe.each([
  ['TCP, unsecured', async (s: M3daSystem): Promise<Send> => unsecured(await tcpLink(stack), s), false],
  ['HTTP, hmac-sha1 + aes-cbc-128', async (s: M3daSystem): Promise<Send> => {
    const device = SecureDevice.withPassword(s.serial, s.password ?? '', { algorithm: 'hmac-sha1', cipher: 'aes-cbc-128' })
    const link = httpLink(stack)
    return async (objects) => (await device.request(link, objects)).objects
  }, true]
] as const)('over %s', { timeout: 120_000 }, (_name, sender, secured) => {
  const system = async (): Promise<M3daSystem> => await m3daSystem(stack, secured ? { password: 'task-secret-1', applications: [generic] } : { registrationPassword: 'registration-unused', applications: [open] })

  it('a reboot reaches the device as @sys.commands.Reboot with a ticket; its Response status 0 ends it SUCCESS', async () => {
    const s = await system()
    const send = await sender(s)
    const uid = await operation('reboot', { systems: { uids: [s.uid] } })
    const [reboot] = await tasksReceived(send)
    expect(reboot).toMatchObject({ path: '@sys.commands.Reboot' })
    expect(reboot?.ticketId).toBeGreaterThan(0)
    await send([{ kind: 'response', ticketId: reboot?.ticketId ?? 0, status: 0, data: null }])
    expect((await waitFinished(stack, uid, 15_000)).state).toBe('FINISHED')
    expect((await allTasks(stack, uid)).map((t) => t.state)).toEqual(['SUCCESS'])
  })

  it('apply settings writes under the settings\' paths; a Response with a status ends it FAILURE with its data', async () => {
    const s = await system()
    const send = await sender(s)
    const uid = await operation('settings', { systems: { uids: [s.uid] }, settings: [{ key: GENERIC_SETTINGS.reportPeriodS, value: 300 }, { key: GENERIC_SETTINGS.apn, value: 'iot.m2m' }], reboot: false })
    const [write] = await tasksReceived(send)
    expect(write).toMatchObject({ path: '@sys.config', body: new Map<string, unknown>([['reportPeriodS', 300], ['apn', Buffer.from('iot.m2m')]]) })
    await send([{ kind: 'response', ticketId: write?.ticketId ?? 0, status: -1, data: 'apn locked' }])
    await waitFinished(stack, uid, 15_000)
    const [task] = await allTasks(stack, uid)
    expect(task?.state).toBe('FAILURE')
    expect(JSON.stringify(task?.error)).toContain('apn locked')
  })
})

describe('delivery', { timeout: 120_000 }, () => {
  it('apply settings then its Response status 0: SUCCESS, the system in sync', async () => {
    const s = await openSystem()
    const link = await tcpLink(stack)
    const send = unsecured(link, s)
    const uid = await operation('settings', { systems: { uids: [s.uid] }, settings: [{ key: GENERIC_SETTINGS.gpsEnabled, value: true }], reboot: false })
    const [write] = await tasksReceived(send)
    expect(write).toMatchObject({ path: '@sys.config', body: new Map([['gpsEnabled', true]]) })
    await send([{ kind: 'response', ticketId: write?.ticketId ?? 0, status: 0, data: null }])
    await waitFinished(stack, uid, 15_000)
    expect((await allTasks(stack, uid)).map((t) => t.state)).toEqual(['SUCCESS'])
    expect((await getOperation(stack, uid)).state).toBe('FINISHED')
    await link.close()
  })

  it('a task not answered goes out again, with the same ticket, at the next session (a new connection)', async () => {
    const s = await openSystem()
    const first = await tcpLink(stack)
    const uid = await operation('reboot', { systems: { uids: [s.uid] } })
    const [sent] = await tasksReceived(unsecured(first, s))
    // The same session does not send it twice.
    expect(messages((await sendUnsecured(first, s.serial, [])).objects)).toEqual([])
    await first.close()
    const second = await tcpLink(stack)
    const again = messages((await sendUnsecured(second, s.serial, [])).objects)
    expect(again).toMatchObject([{ path: '@sys.commands.Reboot', ticketId: sent?.ticketId }])
    await sendUnsecured(second, s.serial, [{ kind: 'response', ticketId: sent?.ticketId ?? 0, status: 0, data: null }])
    await waitFinished(stack, uid, 15_000)
    expect((await deviceTasksOf(stack, uid)).map((t) => t.state)).toEqual(['OK'])
    await second.close()
  })

  it('a retrieve asks ReadNode of the tree paths; the values come back as Messages and the task ends SUCCESS', async () => {
    const s = await openSystem()
    const link = await tcpLink(stack)
    const send = unsecured(link, s)
    const uid = await operation('data/retrieve', { systems: { uids: [s.uid] }, data: [GENERIC_SETTINGS.apn, '_RSSI'] })
    const [read] = await tasksReceived(send)
    expect(read).toMatchObject({ path: '@sys.commands.ReadNode', body: new Map([['1', Buffer.from('config.apn')], ['2', Buffer.from('system.cellular.link.rssi')]]) })
    // As the agent does: the values pushed under @sys.<path>, and the acknowledgement.
    await send([
      { kind: 'message', path: '@sys.config', ticketId: null, body: { apn: 'iot.m2m' } },
      { kind: 'message', path: '@sys.system.cellular.link', ticketId: null, body: { rssi: -80 } },
      { kind: 'response', ticketId: read?.ticketId ?? 0, status: 0, data: null }
    ])
    await waitFinished(stack, uid, 15_000)
    expect((await allTasks(stack, uid)).map((t) => t.state)).toEqual(['SUCCESS'])
    await link.close()
  })
})

describe('a task committed while the first package of a connection is read', { timeout: 120_000 }, () => {
  // The first package asks the store for the system's tasks; a task committed just after that read must be pushed to
  // the connection (it is in session as soon as the package is authentic), not left PENDING until the connection asks
  // the store again a session later (ingest/m3da/session-types.ts `joined`).
  it('is pushed to the connection and goes out in the reply to its next keep-alive', async () => {
    const s = await openSystem()
    const ingest = stack.ctx.services.ingest
    const takeTasks = ingest.takeTasks
    let operationUid: string | undefined
    const spy = vi.spyOn(ingest, 'takeTasks').mockImplementation(async (systemUid, protocol, opts) => {
      const taken = await takeTasks(systemUid, protocol, opts)
      if (systemUid !== s.uid || operationUid !== undefined) return taken
      operationUid = await operation('reboot', { systems: { uids: [s.uid] } })
      // The dispatch took it for this connection (SENT); it stays PENDING when the connection was no push target.
      await eventually(async () => (await deviceTasksOf(stack, operationUid ?? '')).some((t) => t.state === 'SENT'), 30_000, 'the reboot pushed')
      return taken
    })
    try {
      // The first reply waits for the operation's worker and dispatch (held in the read above).
      const link = await tcpLink(stack, 60_000)
      expect(messages((await sendUnsecured(link, s.serial, [])).objects)).toEqual([])
      expect(messages((await sendUnsecured(link, s.serial, [])).objects)).toMatchObject([{ path: '@sys.commands.Reboot' }])
      await link.close()
    } finally {
      spy.mockRestore()
    }
  })

  it('taken for a reply that was lost (answered 503) goes out again in the reply to the next keep-alive', async () => {
    const s = await openSystem()
    const uid = await operation('reboot', { systems: { uids: [s.uid] } })
    await eventually(async () => (await deviceTasksOf(stack, uid)).length > 0, 30_000, 'the reboot committed')
    const ingest = stack.ctx.services.ingest
    const takeTasks = ingest.takeTasks
    let failed = false
    const spy = vi.spyOn(ingest, 'takeTasks').mockImplementation(async (systemUid, protocol, opts) => {
      const taken = await takeTasks(systemUid, protocol, opts)
      if (systemUid !== s.uid || failed) return taken
      failed = true // taken (SENT), then the reply is lost
      throw new Error('the store went away after the read')
    })
    try {
      const link = await tcpLink(stack, 60_000)
      expect((await sendUnsecured(link, s.serial, [])).status).toBe(503)
      expect(messages((await sendUnsecured(link, s.serial, [])).objects)).toMatchObject([{ path: '@sys.commands.Reboot' }])
      await link.close()
    } finally {
      spy.mockRestore()
    }
  })
})
