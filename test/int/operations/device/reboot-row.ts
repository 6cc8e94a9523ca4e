// The rules reboot, reset and wake-up share, run for each through HTTP (docs/api.md#using-the-api rows "reboot", "reset
// to factory", "wake-up", sets S and T; §Reboot, Reset to factory, Wake-up): refused requests answer 400 with the code
// and create nothing; per-system failures end that system's task FAILURE with the code
// (docs/operations.md#bulk-operations); a task that can run writes one `command` device task whose id is the action's
// (docs/devices.md).
import { describe, expect, it } from 'vitest'
import { createUser } from '../../../helpers/factories.js'
import { allTasks, getOperation, started, waitFinished, waitOperation, count, type Json } from '../../../helpers/operations.js'
import type { Stack } from '../../../helpers/stack.js'
import { actionSystem, actionTree, deviceTasksOf, KINDS, newApplication, postAction, refused, type ActionKind } from './reboot-fixtures.js'

const DAY = 86_400_000

export function describeActionRow (kind: ActionKind, stackOf: () => Stack): void {
  const k = KINDS[kind]
  const other = k.actionType === 'REBOOT' ? 'RESET' : 'REBOOT'
  const post = async (body: Json) => await postAction(stackOf(), kind, body)
  let fixture: { app: string, wrongApp: string, bare: string } | undefined
  /** An application with the kind's action `sys.go`, one whose `sys.go` is of another type, one without actions. */
  const apps = async (): Promise<{ app: string, wrongApp: string, bare: string }> => {
    fixture ??= {
      app: await newApplication(stackOf(), { data: actionTree([['go', k.actionType], ['other', other]]) }),
      wrongApp: await newApplication(stackOf(), { data: actionTree([['go', other]]) }),
      bare: await newApplication(stackOf(), { data: actionTree([]) })
    }
    return fixture
  }

  describe(`${kind}: set S`, () => {
    it('selection.invalid: no selection, or two forms at once', async () => {
      const s = await actionSystem(stackOf(), [(await apps()).app])
      await refused(stackOf(), kind, {}, 'selection.invalid')
      await refused(stackOf(), kind, { systems: {} }, 'selection.invalid')
      await refused(stackOf(), kind, { systems: { uids: [s.uid], label: 'x' } }, 'selection.invalid')
    })
    it('selection.empty: no uids, a label nobody carries, criteria matching nothing', async () => {
      await refused(stackOf(), kind, { systems: { uids: [] } }, 'selection.empty')
      // set S's label.unknown: an unknown label selects nothing, answered selection.empty (core/operations/selection.ts)
      await refused(stackOf(), kind, { systems: { label: 'no-system-carries-this' } }, 'selection.empty')
      await refused(stackOf(), kind, { systems: { criteria: { name: 'no-such-name-anywhere' } } }, 'selection.empty')
    })
    it('selection.max.uid.reached: 101 distinct uids (in uids or criteria.uids)', async () => {
      const uids = Array.from({ length: 101 }, (_, i) => `u${i}`)
      await refused(stackOf(), kind, { systems: { uids } }, 'selection.max.uid.reached')
      await refused(stackOf(), kind, { systems: { criteria: { uids } } }, 'selection.max.uid.reached')
    })
    it('operation.unknown: dependsOn an operation that does not exist', async () => {
      await refused(stackOf(), kind, { systems: { dependsOn: { operation: 'f'.repeat(32) } } }, 'operation.unknown')
    })
    it('system.unknown: a uid that is not a system of the company', async () => {
      await refused(stackOf(), kind, { systems: { uids: ['0'.repeat(32)] } }, 'system.unknown')
    })
  })

  describe(`${kind}: the action`, () => {
    it(`${k.invalid}: an id no selected system defines, an action of another type, a setting; nothing created`, async () => {
      const { app, wrongApp } = await apps()
      const a = await actionSystem(stackOf(), [app])
      const b = await actionSystem(stackOf(), [wrongApp])
      const body = (action: string, uids = [a.uid]): Json => ({ systems: { uids }, action })
      expect((await refused(stackOf(), kind, body('sys.nowhere'), k.invalid)).errorParameters[0]).toBe('sys.nowhere')
      await refused(stackOf(), kind, body('sys.other'), k.invalid)
      await refused(stackOf(), kind, body('conf.level'), k.invalid)
      // Of the right type on one system, of another type on the other: refused as well.
      await refused(stackOf(), kind, body('sys.go', [a.uid, b.uid]), k.invalid)
    })

    it(`a named action: a command device task with its id; a system without it fails with ${k.missing}`, async () => {
      const { app, bare } = await apps()
      const a = await actionSystem(stackOf(), [app])
      const b = await actionSystem(stackOf(), [bare])
      const uid = await started(post({ systems: { uids: [a.uid, b.uid] }, action: 'sys.go' }))
      const op = await waitOperation(stackOf(), uid, (o) => count(o, 'PENDING') === 0, 10_000, 'every task started')
      expect(op).toMatchObject({ operationType: k.type, state: 'IN_PROGRESS', total: 2 })
      expect(op.parameters).toMatchObject({ action: 'sys.go' })
      const tasks = await allTasks(stackOf(), uid)
      const ta = tasks.find((t) => t.system.uid === a.uid)
      const tb = tasks.find((t) => t.system.uid === b.uid)
      expect(ta).toMatchObject({ state: 'IN_PROGRESS', error: null })
      expect(tb).toMatchObject({ state: 'FAILURE', error: { code: k.missing } })
      expect(tb?.error?.message).toContain(`sys.go attach an application that declares sys.go as a ${k.actionType} action (`)
      const dts = await deviceTasksOf(stackOf(), uid)
      expect(dts).toHaveLength(1)
      expect(dts[0]).toMatchObject({ uid: ta?.uid, systemUid: a.uid, protocol: 'MQTT', state: 'PENDING', operationTaskUid: ta?.uid })
      expect(dts[0]?.body).toMatchObject({ uid: ta?.uid, command: { id: 'sys.go', params: {} } })
      await cancelled(uid)
    })

    it(`without action: a system whose applications have no ${k.actionType} action fails with ${k.missing}`, async () => {
      const { wrongApp, bare } = await apps()
      const a = await actionSystem(stackOf(), [wrongApp])
      const b = await actionSystem(stackOf(), [])
      const c = await actionSystem(stackOf(), [bare])
      const op = await waitFinished(stackOf(), await started(post({ systems: { uids: [a.uid, b.uid, c.uid] } })))
      expect(count(op, 'FAILURE')).toBe(3)
      for (const t of await allTasks(stackOf(), op.uid)) {
        expect(t.error?.code).toBe(k.missing)
        expect(t.error?.message).toContain(`attach an application that declares a ${k.actionType} action (`)
      }
      expect(await deviceTasksOf(stackOf(), op.uid)).toEqual([])
    })
  })

  describe(`${kind}: per system, the transport`, () => {
    it('operation.no.communication.id.on.system.for.protocol: the system has no password for the protocol', async () => {
      const s = await actionSystem(stackOf(), [(await apps()).app], { passwords: false })
      const op = await waitFinished(stackOf(), await started(post({ systems: { uids: [s.uid] } })))
      const [t] = await allTasks(stackOf(), op.uid)
      expect(t).toMatchObject({ state: 'FAILURE', error: { code: 'operation.no.communication.id.on.system.for.protocol' } })
      expect(t?.error?.message).toContain('MQTT')
      expect(await deviceTasksOf(stackOf(), op.uid)).toEqual([])
    })

    it('operation.protocol.not.found.on.system.for.encoding: a protocol its applications do not speak, or none at all', async () => {
      const s = await actionSystem(stackOf(), [(await apps()).app])
      const silentApp = await newApplication(stackOf(), { protocols: [], data: actionTree([['go', k.actionType]]) })
      const silent = await actionSystem(stackOf(), [silentApp])
      const op1 = await waitFinished(stackOf(), await started(post({ systems: { uids: [s.uid] }, protocol: 'M3DA' })))
      const op2 = await waitFinished(stackOf(), await started(post({ systems: { uids: [silent.uid] } })))
      for (const op of [op1, op2]) {
        expect(await allTasks(stackOf(), op.uid)).toMatchObject([{ state: 'FAILURE', error: { code: 'operation.protocol.not.found.on.system.for.encoding' } }])
        expect(await deviceTasksOf(stackOf(), op.uid)).toEqual([])
      }
    })

    it('protocol: the named transport carries the task when the applications speak it', async () => {
      const app = await newApplication(stackOf(), { protocols: ['MQTT', 'REST'], data: actionTree([['go', k.actionType]]) })
      const s = await actionSystem(stackOf(), [app])
      const uid = await started(post({ systems: { uids: [s.uid] }, protocol: 'rest' }))
      await waitOperation(stackOf(), uid, (o) => count(o, 'IN_PROGRESS') === 1)
      expect(await deviceTasksOf(stackOf(), uid)).toMatchObject([{ protocol: 'REST', body: { command: { id: 'sys.go' } } }])
      await cancelled(uid)
    })
  })

  it(`${kind}: needs the right device.management.action`, async () => {
    const s = await actionSystem(stackOf(), [(await apps()).app])
    const user = await createUser(stackOf(), { rights: ['entities.systems.view'] })
    const res = await postAction(stackOf(), kind, { systems: { uids: [s.uid] } }, user.token)
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 403, body: { error: 'missing.rights', errorParameters: ['device.management.action'] } })
  })

  /** Cancels an operation whose device tasks were never delivered: they are withdrawn, the tasks CANCELLED. */
  async function cancelled (uid: string): Promise<void> {
    const res = await stackOf().call(stackOf().adminToken, { method: 'POST', url: `/api/v1/operations/${uid}/cancel` })
    expect(res.statusCode).toBe(200)
    const op = await waitFinished(stackOf(), uid)
    expect(count(op, 'IN_PROGRESS') + count(op, 'BEING_CANCELLED') + count(op, 'PENDING')).toBe(0)
    for (const t of await deviceTasksOf(stackOf(), uid)) expect(t.state).toBe('CANCELLED')
    expect((await getOperation(stackOf(), uid)).cancelDate).not.toBeNull()
  }
}

/** Set T for the kinds that take scheduledTime (reboot, reset). */
export function describeScheduleRules (kind: 'reboot' | 'reset', stackOf: () => Stack): void {
  describe(`${kind}: set T`, () => {
    it('operation.invalid.schedule.date: 90 days ahead or more; operation.invalid.timeout.date: timeout before scheduledTime', async () => {
      const app = await newApplication(stackOf(), { data: actionTree([['go', KINDS[kind].actionType]]) })
      const s = await actionSystem(stackOf(), [app])
      await refused(stackOf(), kind, { systems: { uids: [s.uid] }, scheduledTime: Date.now() + 91 * DAY }, 'operation.invalid.schedule.date')
      const at = Date.now() + DAY
      await refused(stackOf(), kind, { systems: { uids: [s.uid] }, scheduledTime: at, timeout: at - 1000 }, 'operation.invalid.timeout.date')
      // 89 days ahead is accepted and waits, writing no device task yet.
      const uid = await started(postAction(stackOf(), kind, { systems: { uids: [s.uid] }, scheduledTime: Date.now() + 89 * DAY }))
      expect(await getOperation(stackOf(), uid)).toMatchObject({ state: 'SCHEDULED' })
      expect(await deviceTasksOf(stackOf(), uid)).toEqual([])
      expect((await stackOf().call(stackOf().adminToken, { method: 'POST', url: `/api/v1/operations/${uid}/cancel` })).statusCode).toBe(200)
    })
  })
}
