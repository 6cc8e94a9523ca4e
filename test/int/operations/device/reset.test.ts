// POST /api/v1/operations/systems/reset through HTTP (docs/operations.md#bulk-operations; §Errors row
// "reset to factory", sets S and T): the shared rules (reboot-row.ts); without `action` every RESET action of the
// system is used (the device-side sequence is tested in reboot-devices.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { count, started, waitOperation } from '../../../helpers/operations.js'
import { startStack, type Stack } from '../../../helpers/stack.js'
import { actionSystem, actionTree, deviceTasksOf, newApplication, postAction } from './reboot-fixtures.js'
import { describeActionRow, describeScheduleRules } from './reboot-row.js'

let stack: Stack
// A cold store start takes long when other test files share the cores.
beforeAll(async () => { stack = await startStack() }, 120_000)
afterAll(async () => { await stack?.close() })

describeActionRow('reset', () => stack)
describeScheduleRules('reset', () => stack)

describe('reset without action', () => {
  it('plans every RESET action of the system, the first sent at once; an explicit action sends that one only', async () => {
    const a = await newApplication(stack, { category: 'FIRMWARE', data: actionTree([['factory', 'RESET'], ['reboot', 'REBOOT']]) })
    const b = await newApplication(stack, { category: 'SOFTWARE', protocols: [], data: actionTree([['appReset', 'RESET']]) })
    const s = await actionSystem(stack, [a, b])
    const all = await started(postAction(stack, 'reset', { systems: { uids: [s.uid] } }))
    await waitOperation(stack, all, (o) => count(o, 'IN_PROGRESS') === 1)
    const [first] = await deviceTasksOf(stack, all)
    expect(['sys.factory', 'sys.appReset']).toContain(first?.body.command.id)
    expect(first?.protocol).toBe('MQTT')
    const one = await started(postAction(stack, 'reset', { systems: { uids: [s.uid] }, action: 'sys.appReset' }))
    await waitOperation(stack, one, (o) => count(o, 'IN_PROGRESS') === 1)
    expect(await deviceTasksOf(stack, one)).toMatchObject([{ protocol: 'MQTT', body: { command: { id: 'sys.appReset', params: {} } } }])
  })
})
