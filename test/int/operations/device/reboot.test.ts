// POST /api/v1/operations/systems/reboot through HTTP (docs/operations.md#bulk-operations; §Errors row
// "reboot", sets S and T): the shared rules (reboot-row.ts), and which REBOOT action a system without `action` uses
// ("reboots through the first firmware that answers").
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GENERIC_ACTIONS, GENERIC_APPLICATION_TYPES } from '../../../../core/domain/generic-applications.js'
import { allTasks, count, started, waitOperation } from '../../../helpers/operations.js'
import { startStack, type Stack } from '../../../helpers/stack.js'
import { actionSystem, actionTree, deviceTasksOf, newApplication, postAction } from './reboot-fixtures.js'
import { describeActionRow, describeScheduleRules } from './reboot-row.js'

let stack: Stack
// A cold store start takes long when other test files share the cores.
beforeAll(async () => { stack = await startStack() }, 120_000)
afterAll(async () => { await stack?.close() })

describeActionRow('reboot', () => stack)
describeScheduleRules('reboot', () => stack)

/** Starts a reboot of one system and answers the command id of the device task it wrote. */
async function rebootCommand (systemUid: string): Promise<string> {
  const uid = await started(postAction(stack, 'reboot', { systems: { uids: [systemUid] } }))
  await waitOperation(stack, uid, (o) => count(o, 'IN_PROGRESS') === 1, 10_000, 'the task started')
  const [t] = await deviceTasksOf(stack, uid)
  expect(t?.uid).toBe((await allTasks(stack, uid))[0]?.uid)
  return t?.body.command.id
}

describe('reboot without action', () => {
  it('uses the REBOOT action of the first FIRMWARE application, even after a software one that has one', async () => {
    // Two applications may not share a protocol: the software one speaks none (it is listed before the firmware).
    const software = await newApplication(stack, { category: 'SOFTWARE', protocols: [], data: actionTree([['swReboot', 'REBOOT']]) })
    const firmware = await newApplication(stack, { category: 'FIRMWARE', data: actionTree([['fwReboot', 'REBOOT']]) })
    const s = await actionSystem(stack, [software, firmware])
    expect(await rebootCommand(s.uid)).toBe('sys.fwReboot')
  })

  it('a firmware without a REBOOT action is passed over; with no firmware that has one, the first application that has one', async () => {
    const firmware = await newApplication(stack, { category: 'FIRMWARE', protocols: ['REST'], data: actionTree([['reset', 'RESET']]) })
    const software = await newApplication(stack, { category: 'SOFTWARE', data: actionTree([['swReboot', 'REBOOT']]) })
    const s = await actionSystem(stack, [firmware, software])
    expect(await rebootCommand(s.uid)).toBe('sys.swReboot')
  })

  it('a system with the seeded generic MQTT firmware reboots through its system.reboot action', async () => {
    const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/applications?type=${GENERIC_APPLICATION_TYPES.MQTT}` })
    const generic = (res.json().items as Array<{ uid: string }>)[0]?.uid
    expect(generic).toBeDefined()
    const s = await actionSystem(stack, [generic as string])
    expect(await rebootCommand(s.uid)).toBe(GENERIC_ACTIONS.reboot)
  })
})

describe('reboot with the safe-rollout fields (issue 9, not in AirVantage)', () => {
  it('keeps rollout and abort in the operation\'s parameters for the engine; without them the parameters hold neither', async () => {
    const app = await newApplication(stack, { data: actionTree([['reboot', 'REBOOT']]) })
    const s = await actionSystem(stack, [app])
    const uid = await started(postAction(stack, 'reboot', { systems: { uids: [s.uid] }, rollout: { maxPerMinute: 600 }, abort: { failurePercent: 50, minTasks: 10 } }))
    const op = await waitOperation(stack, uid, (o) => count(o, 'PENDING') === 0)
    expect(op.parameters).toEqual({ action: null, protocol: null, requestConnection: false, rollout: { maxPerMinute: 600 }, abort: { failurePercent: 50, minTasks: 10 } })
    const plain = await started(postAction(stack, 'reboot', { systems: { uids: [s.uid] }, rollout: null }))
    expect((await waitOperation(stack, plain, (o) => count(o, 'PENDING') === 0)).parameters).toEqual({ action: null, protocol: null, requestConnection: false })
  })
})
