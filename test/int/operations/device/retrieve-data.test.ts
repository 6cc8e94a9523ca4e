// POST /api/v1/operations/systems/data/retrieve through HTTP (docs/operations.md#bulk-operations; §Errors row "retrieve
// data", sets S and T): refused requests answer 400 with the code and create no operation and no device task;
// per-system failures end that system's task FAILURE with the code (docs/operations.md#bulk-operations); a task that
// can run writes one `read` device task with the ids asked for (docs/devices.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser } from '../../../helpers/factories.js'
import { allTasks, count, getOperation, started, waitOperation, type Json } from '../../../helpers/operations.js'
import { startStack, type Stack } from '../../../helpers/stack.js'
import { actionSystem, deviceTasksOf, newApplication } from './reboot-fixtures.js'
import { operationRoute } from './operation-route.js'
import { declareHint } from '../../../../core/operations/device/declare-hint.js'

const DAY = 86_400_000
let stack: Stack
/** An application with variable `m.temp`, setting `conf.level`, action `sys.reboot` and command `sys.cmd`; its MQTT twin over REST too. */
let app: string
let both: string

/** The data tree of the test applications. */
const tree: Json[] = [
  { id: 'm', elementType: 'node', data: [{ id: 'temp', elementType: 'variable', type: 'double' }] },
  { id: 'conf', elementType: 'node', data: [{ id: 'level', elementType: 'setting', type: 'int' }] },
  { id: 'sys', elementType: 'node', data: [{ id: 'reboot', elementType: 'action', actionType: 'REBOOT' }, { id: 'cmd', elementType: 'command' }] }
]

beforeAll(async () => {
  stack = await startStack()
  app = await newApplication(stack, { data: tree })
  both = await newApplication(stack, { protocols: ['MQTT', 'REST'], data: tree })
})
afterAll(async () => { await stack?.close() })

const { post, refused, cancel, failsWith } = operationRoute(() => stack, 'data/retrieve')

describe('retrieve data: the request', () => {
  it('operation.missing.data.ids: data missing, null or empty', async () => {
    const s = await actionSystem(stack, [app])
    await refused({ systems: { uids: [s.uid] } }, 'operation.missing.data.ids')
    await refused({ systems: { uids: [s.uid] }, data: null }, 'operation.missing.data.ids')
    await refused({ systems: { uids: [s.uid] }, data: [] }, 'operation.missing.data.ids')
  })

  it('operation.all.data.undefined: no selected system defines any of the ids as a variable or setting', async () => {
    const a = await actionSystem(stack, [app])
    const b = await actionSystem(stack, [])
    const res = await refused({ systems: { uids: [a.uid, b.uid] }, data: ['nowhere.x', 'nowhere.y'] }, 'operation.all.data.undefined')
    expect(res.errorParameters).toEqual(['nowhere.x', 'nowhere.y', declareHint('them as variables or settings')])
    expect(res.errorParameters.at(-1)).toMatch(/^attach an application that declares them as variables or settings \(.*GET \/api\/v1\/applications\?type=generic\.mqtt/)
    // An action or a command is run, not read.
    await refused({ systems: { uids: [a.uid] }, data: ['sys.reboot', 'sys.cmd'] }, 'operation.all.data.undefined')
  })

  it('needs the right entities.systems.retrieve.data', async () => {
    const s = await actionSystem(stack, [app])
    const user = await createUser(stack, { rights: ['entities.systems.view'] })
    const res = await post({ systems: { uids: [s.uid] }, data: ['m.temp'] }, user.token)
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 403, body: { error: 'missing.rights', errorParameters: ['entities.systems.retrieve.data'] } })
  })
})

describe('retrieve data: set S', () => {
  const data = ['m.temp']
  it('selection.invalid: no selection, or two forms at once', async () => {
    const s = await actionSystem(stack, [app])
    await refused({ data }, 'selection.invalid')
    await refused({ data, systems: {} }, 'selection.invalid')
    await refused({ data, systems: { uids: [s.uid], label: 'x' } }, 'selection.invalid')
  })
  it('selection.empty: no uids, criteria matching nothing', async () => {
    await refused({ data, systems: { uids: [] } }, 'selection.empty')
    await refused({ data, systems: { criteria: { name: 'no-such-name-anywhere' } } }, 'selection.empty')
  })
  it('label.unknown: a label no system carries selects nothing, answered selection.empty (core/operations/selection.ts)', async () => {
    expect((await refused({ data, systems: { label: 'no-system-carries-this' } }, 'selection.empty')).errorParameters).toEqual(['label', 'no-system-carries-this'])
  })
  it('selection.max.uid.reached: 101 distinct uids', async () => {
    const uids = Array.from({ length: 101 }, (_, i) => `u${i}`)
    await refused({ data, systems: { uids } }, 'selection.max.uid.reached')
    await refused({ data, systems: { criteria: { uids } } }, 'selection.max.uid.reached')
  })
  it('operation.unknown: dependsOn an operation that does not exist', async () => {
    await refused({ data, systems: { dependsOn: { operation: 'f'.repeat(32) } } }, 'operation.unknown')
  })
})

describe('retrieve data: set T', () => {
  it('operation.invalid.schedule.date: 90 days ahead or more', async () => {
    const s = await actionSystem(stack, [app])
    await refused({ data: ['m.temp'], systems: { uids: [s.uid] }, scheduledTime: Date.now() + 91 * DAY }, 'operation.invalid.schedule.date')
  })
  it('operation.invalid.timeout.date: a timeout before scheduledTime', async () => {
    const s = await actionSystem(stack, [app])
    const at = Date.now() + DAY
    await refused({ data: ['m.temp'], systems: { uids: [s.uid] }, scheduledTime: at, timeout: at - 1000 }, 'operation.invalid.timeout.date')
  })
})

describe('retrieve data: per system', () => {
  it('a read device task with the ids; a system lacking one of them fails with operation.data.undefined naming it', async () => {
    const other = await newApplication(stack, { data: [{ id: 'm', elementType: 'node', data: [{ id: 'temp', elementType: 'variable', type: 'double' }] }] })
    const a = await actionSystem(stack, [app])
    const b = await actionSystem(stack, [other])
    const uid = await started(post({ systems: { uids: [a.uid, b.uid] }, data: ['m.temp', 'conf.level', 'm.temp'] }))
    const op = await waitOperation(stack, uid, (o) => count(o, 'PENDING') === 0, 10_000, 'every task started')
    expect(op).toMatchObject({ operationType: 'SYSTEM_RETRIEVE_DATA', state: 'IN_PROGRESS', total: 2, parameters: { data: ['m.temp', 'conf.level'], protocol: null, requestConnection: false } })
    const tasks = await allTasks(stack, uid)
    const ta = tasks.find((t) => t.system.uid === a.uid)
    expect(ta).toMatchObject({ state: 'IN_PROGRESS', error: null })
    expect(tasks.find((t) => t.system.uid === b.uid)).toMatchObject({ state: 'FAILURE', error: { code: 'operation.data.undefined', message: `operation.data.undefined conf.level ${declareHint('them as variables or settings')}` } })
    const dts = await deviceTasksOf(stack, uid)
    expect(dts).toHaveLength(1)
    expect(dts[0]).toMatchObject({ uid: ta?.uid, systemUid: a.uid, protocol: 'MQTT', state: 'PENDING', operationTaskUid: ta?.uid })
    expect(dts[0]?.body).toMatchObject({ uid: ta?.uid, read: ['m.temp', 'conf.level'] })
    await cancel(uid)
    expect((await deviceTasksOf(stack, uid))[0]?.state).toBe('CANCELLED')
  })

  it('operation.protocol.not.found.on.system.for.encoding: a protocol its applications do not speak, or none at all', async () => {
    const s = await actionSystem(stack, [app])
    const silent = await actionSystem(stack, [await newApplication(stack, { protocols: [], data: tree })])
    const code = 'operation.protocol.not.found.on.system.for.encoding'
    await failsWith({ systems: { uids: [s.uid] }, data: ['m.temp'], protocol: 'M3DA' }, code)
    await failsWith({ systems: { uids: [silent.uid] }, data: ['m.temp'] }, code)
  })

  it('operation.on.system.missing.comm.identifiers: no password for the protocol', async () => {
    const s = await actionSystem(stack, [app], { passwords: false })
    const t = await failsWith({ systems: { uids: [s.uid] }, data: ['m.temp'] }, 'operation.on.system.missing.comm.identifiers')
    expect(t.error?.message).toContain('MQTT')
  })

  it('protocol: the named transport carries the read', async () => {
    const s = await actionSystem(stack, [both])
    const uid = await started(post({ systems: { uids: [s.uid] }, data: ['conf.level'], protocol: 'rest', requestConnection: true }))
    await waitOperation(stack, uid, (o) => count(o, 'IN_PROGRESS') === 1)
    expect(await deviceTasksOf(stack, uid)).toMatchObject([{ protocol: 'REST', body: { read: ['conf.level'] } }])
    expect((await getOperation(stack, uid)).parameters).toMatchObject({ protocol: 'REST', requestConnection: true })
    await cancel(uid)
  })
})
