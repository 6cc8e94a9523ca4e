// POST /api/v1/operations/systems/wakeup through HTTP (docs/operations.md#bulk-operations; §Errors row
// "wake-up", whose codes the spec leaves unlisted: ours follow the reboot row, core/operations/kinds/wakeup.ts). Its
// common parameters are notify, callback and timeout: a scheduledTime is not taken, and it always asks for a
// connection (the SMS tap itself is tested in wakeup-sms.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { count, getOperation, started, waitOperation } from '../../../helpers/operations.js'
import { startStack, type Stack } from '../../../helpers/stack.js'
import { actionSystem, actionTree, deviceTasksOf, newApplication, postAction } from './reboot-fixtures.js'
import { describeActionRow } from './reboot-row.js'

let stack: Stack
// A cold store start takes long when other test files share the cores.
beforeAll(async () => { stack = await startStack() }, 120_000)
afterAll(async () => { await stack?.close() })

describeActionRow('wakeup', () => stack)

describe('wake-up', () => {
  it('starts at once whatever scheduledTime says, and records that it asks for a connection', async () => {
    const app = await newApplication(stack, { data: actionTree([['connect', 'CONNECT']]) })
    const s = await actionSystem(stack, [app])
    const uid = await started(postAction(stack, 'wakeup', { systems: { uids: [s.uid] }, scheduledTime: Date.now() + 86_400_000, requestConnection: false }))
    const op = await waitOperation(stack, uid, (o) => count(o, 'IN_PROGRESS') === 1)
    expect(op).toMatchObject({ state: 'IN_PROGRESS', scheduledTime: null, parameters: { requestConnection: true } })
    expect(await deviceTasksOf(stack, uid)).toMatchObject([{ body: { command: { id: 'sys.connect', params: {} } } }])
    expect((await getOperation(stack, uid)).startDate).not.toBeNull()
  })

  it('without action: the CONNECT action of the application that communicates', async () => {
    // The silent one is listed first (software before firmware): the one that communicates is chosen all the same.
    const silent = await newApplication(stack, { category: 'SOFTWARE', protocols: [], data: actionTree([['silentConnect', 'CONNECT']]) })
    const comm = await newApplication(stack, { category: 'FIRMWARE', data: actionTree([['commConnect', 'CONNECT']]) })
    const s = await actionSystem(stack, [silent, comm])
    const uid = await started(postAction(stack, 'wakeup', { systems: { uids: [s.uid] } }))
    await waitOperation(stack, uid, (o) => count(o, 'IN_PROGRESS') === 1)
    expect(await deviceTasksOf(stack, uid)).toMatchObject([{ protocol: 'MQTT', body: { command: { id: 'sys.commConnect' } } }])
  })
})
