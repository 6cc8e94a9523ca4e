// POST /api/v1/operations/systems/settings through HTTP (docs/operations.md#bulk-operations; §Errors row "apply
// settings", sets S and T): refused requests answer 400 with the code and create no operation and no device task;
// per-system failures end that system's task FAILURE with the code (docs/operations.md#bulk-operations); a task that
// can run writes one `write` device task `[{key: value}, ...]` (docs/devices.md), with the template's settings when
// templateId is set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser, uniq } from '../../../helpers/factories.js'
import { allTasks, count, getOperation, started, waitOperation, type Json } from '../../../helpers/operations.js'
import { startStack, type Stack } from '../../../helpers/stack.js'
import { actionSystem, deviceTasksOf, newApplication } from './reboot-fixtures.js'
import { operationRoute } from './operation-route.js'
import { declareHint } from '../../../../core/operations/device/declare-hint.js'

const DAY = 86_400_000
let stack: Stack
let app: string
let both: string

/** Settings of each type under `conf`, a variable `m.temp`, a REBOOT action. */
const tree: Json[] = [
  {
    id: 'conf',
    elementType: 'node',
    data: [
      { id: 'level', elementType: 'setting', type: 'int' },
      { id: 'ratio', elementType: 'setting', type: 'double' },
      { id: 'on', elementType: 'setting', type: 'boolean' },
      { id: 'name', elementType: 'setting', type: 'string' }
    ]
  },
  { id: 'm', elementType: 'node', data: [{ id: 'temp', elementType: 'variable', type: 'double' }] },
  { id: 'sys', elementType: 'node', data: [{ id: 'reboot', elementType: 'action', actionType: 'REBOOT' }] }
]

beforeAll(async () => {
  stack = await startStack()
  app = await newApplication(stack, { data: tree })
  both = await newApplication(stack, { protocols: ['MQTT', 'REST'], data: tree })
})
afterAll(async () => { await stack?.close() })

const { post, refused, cancel, failsWith } = operationRoute(() => stack, 'settings')

/** POST /api/v1/templates; answers the template's uid. */
async function template (name: string, settings: Json[]): Promise<string> {
  const res = await stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/templates', payload: { name, settings } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().uid
}

/** The one task of a one-system operation once it left PENDING, with the operation. */
async function single (uid: string): Promise<{ op: Json, task: Json }> {
  const op = await waitOperation(stack, uid, (o) => count(o, 'PENDING') === 0, 10_000, 'the task started')
  const [task] = await allTasks(stack, uid)
  return { op, task: task as Json }
}

const level = [{ key: 'conf.level', value: 3 }]

describe('apply settings: the request', () => {
  it('operation.missing.settings: no settings and no templateId', async () => {
    const s = await actionSystem(stack, [app])
    await refused({ systems: { uids: [s.uid] } }, 'operation.missing.settings')
    await refused({ systems: { uids: [s.uid] }, settings: null, templateId: null }, 'operation.missing.settings')
    await refused({ systems: { uids: [s.uid] }, settings: [], templateId: '' }, 'operation.missing.settings')
  })

  it('settings.unknown: a templateId that is no template of the company', async () => {
    const s = await actionSystem(stack, [app])
    const res = await refused({ systems: { uids: [s.uid] }, templateId: 'f'.repeat(32), settings: level }, 'settings.unknown')
    expect(res.errorParameters).toEqual(['f'.repeat(32)])
  })

  it('operation.invalid.multiple.entries.for.same.key: a key given twice', async () => {
    const s = await actionSystem(stack, [app])
    const res = await refused({ systems: { uids: [s.uid] }, settings: [{ key: 'conf.level', value: 1 }, { key: 'conf.on', value: true }, { key: 'conf.level', value: 2 }] },
      'operation.invalid.multiple.entries.for.same.key')
    expect(res.errorParameters).toEqual(['conf.level'])
  })

  it('operation.all.settings.undefined: no selected system defines any key as a setting (a variable is not one)', async () => {
    const a = await actionSystem(stack, [app])
    const b = await actionSystem(stack, [])
    const res = await refused({ systems: { uids: [a.uid, b.uid] }, settings: [{ key: 'm.temp', value: 1.5 }, { key: 'no.such', value: 'x' }] }, 'operation.all.settings.undefined')
    expect(res.errorParameters).toEqual(['m.temp', 'no.such', declareHint('them as settings')])
  })

  it('a value that is not a boolean, number or string: request.invalid', async () => {
    const s = await actionSystem(stack, [app])
    await refused({ systems: { uids: [s.uid] }, settings: [{ key: 'conf.level', value: { n: 1 } }] }, 'request.invalid')
    await refused({ systems: { uids: [s.uid] }, settings: [{ key: 'conf.level', value: null }] }, 'request.invalid')
  })

  it('needs the right entities.systems.settings.apply', async () => {
    const s = await actionSystem(stack, [app])
    const user = await createUser(stack, { rights: ['entities.systems.view'] })
    const res = await post({ systems: { uids: [s.uid] }, settings: level }, user.token)
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 403, body: { error: 'missing.rights', errorParameters: ['entities.systems.settings.apply'] } })
  })
})

describe('apply settings: set S', () => {
  it('selection.invalid: no selection, or two forms at once', async () => {
    const s = await actionSystem(stack, [app])
    await refused({ settings: level }, 'selection.invalid')
    await refused({ settings: level, systems: {} }, 'selection.invalid')
    await refused({ settings: level, systems: { uids: [s.uid], criteria: {} } }, 'selection.invalid')
  })
  it('selection.empty: no uids, criteria matching nothing', async () => {
    await refused({ settings: level, systems: { uids: [] } }, 'selection.empty')
    await refused({ settings: level, systems: { criteria: { name: 'no-such-name-anywhere' } } }, 'selection.empty')
  })
  it('label.unknown: a label no system carries selects nothing, answered selection.empty (core/operations/selection.ts)', async () => {
    expect((await refused({ settings: level, systems: { label: 'no-system-carries-this' } }, 'selection.empty')).errorParameters).toEqual(['label', 'no-system-carries-this'])
  })
  it('selection.max.uid.reached: 101 distinct uids', async () => {
    const uids = Array.from({ length: 101 }, (_, i) => `u${i}`)
    await refused({ settings: level, systems: { uids } }, 'selection.max.uid.reached')
  })
  it('operation.unknown: dependsOn an operation that does not exist', async () => {
    await refused({ settings: level, systems: { dependsOn: { operation: 'f'.repeat(32) } } }, 'operation.unknown')
  })
})

describe('apply settings: set T', () => {
  it('operation.invalid.schedule.date: 90 days ahead or more', async () => {
    const s = await actionSystem(stack, [app])
    await refused({ settings: level, systems: { uids: [s.uid] }, scheduledTime: Date.now() + 91 * DAY }, 'operation.invalid.schedule.date')
  })
  it('operation.invalid.timeout.date: a timeout before scheduledTime', async () => {
    const s = await actionSystem(stack, [app])
    const at = Date.now() + DAY
    await refused({ settings: level, systems: { uids: [s.uid] }, scheduledTime: at, timeout: at - 1000 }, 'operation.invalid.timeout.date')
  })
})

describe('apply settings: per system', () => {
  it('a write device task [{key: value}, ...]; parameters with the defaults (templateName Custom, reboot true)', async () => {
    const s = await actionSystem(stack, [app])
    const settings = [{ key: 'conf.level', value: 3 }, { key: 'conf.ratio', value: 0.25 }, { key: 'conf.on', value: false }, { key: 'conf.name', value: 'north' }]
    const uid = await started(post({ systems: { uids: [s.uid] }, settings }))
    const { op, task } = await single(uid)
    expect(op).toMatchObject({ operationType: 'SYSTEM_APPLY_SETTINGS', state: 'IN_PROGRESS', total: 1 })
    expect(op.parameters).toEqual({ settings, templateId: null, templateName: 'Custom', reboot: true, protocol: null, requestConnection: false })
    expect(task).toMatchObject({ state: 'IN_PROGRESS', error: null })
    const dts = await deviceTasksOf(stack, uid)
    expect(dts).toMatchObject([{ uid: task.uid, systemUid: s.uid, protocol: 'MQTT', state: 'PENDING', operationTaskUid: task.uid }])
    expect(dts[0]?.body).toMatchObject({ uid: task.uid, write: [{ 'conf.level': 3 }, { 'conf.ratio': 0.25 }, { 'conf.on': false }, { 'conf.name': 'north' }] })
    await cancel(uid)
  })

  it('a whole number is a double too (JSON keeps no ".0"); templateName and reboot false are kept', async () => {
    const s = await actionSystem(stack, [app])
    const uid = await started(post({ systems: { uids: [s.uid] }, settings: [{ key: 'conf.ratio', value: 2 }], templateName: 'Night', reboot: false }))
    const { op, task } = await single(uid)
    expect(task.state).toBe('IN_PROGRESS')
    expect(op.parameters).toMatchObject({ templateName: 'Night', reboot: false })
    await cancel(uid)
  })

  it('templateId: the template\'s settings replace the request\'s, its name is the templateName', async () => {
    const s = await actionSystem(stack, [app])
    const name = uniq('tpl')
    const tpl = await template(name, [{ key: 'conf.level', value: 7 }, { key: 'conf.on', value: true }])
    const uid = await started(post({ systems: { uids: [s.uid] }, templateId: tpl, templateName: 'ignored', settings: [{ key: 'conf.name', value: 'x' }] }))
    const { op } = await single(uid)
    expect(op.parameters).toMatchObject({ templateId: tpl, templateName: name, settings: [{ key: 'conf.level', value: 7 }, { key: 'conf.on', value: true }] })
    expect((await deviceTasksOf(stack, uid))[0]?.body.write).toEqual([{ 'conf.level': 7 }, { 'conf.on': true }])
    await cancel(uid)
  })

  it('settings.unknown: a key the system does not define as a setting fails its task, naming it; nothing is written', async () => {
    const partial = await newApplication(stack, { data: [{ id: 'conf', elementType: 'node', data: [{ id: 'level', elementType: 'setting', type: 'int' }] }] })
    const a = await actionSystem(stack, [app])
    const b = await actionSystem(stack, [partial])
    const uid = await started(post({ systems: { uids: [a.uid, b.uid] }, settings: [{ key: 'conf.level', value: 1 }, { key: 'conf.name', value: 'n' }] }))
    await waitOperation(stack, uid, (o) => count(o, 'PENDING') === 0)
    const tasks = await allTasks(stack, uid)
    expect(tasks.find((t) => t.system.uid === b.uid)).toMatchObject({ state: 'FAILURE', error: { code: 'settings.unknown', message: `settings.unknown conf.name ${declareHint('them as settings')}` } })
    expect(tasks.find((t) => t.system.uid === a.uid)?.state).toBe('IN_PROGRESS')
    expect((await deviceTasksOf(stack, uid)).map((t) => t.systemUid)).toEqual([a.uid])
    await cancel(uid)
  })

  it('settings.unknown: a value whose JSON type is not the setting\'s declared type', async () => {
    const s = await actionSystem(stack, [app])
    for (const [setting, message] of [
      [{ key: 'conf.level', value: '3' }, 'settings.unknown conf.level declared int given string'],
      [{ key: 'conf.level', value: 1.5 }, 'settings.unknown conf.level declared int given double'],
      [{ key: 'conf.on', value: 1 }, 'settings.unknown conf.on declared boolean given integer'],
      [{ key: 'conf.name', value: true }, 'settings.unknown conf.name declared string given boolean']
    ] as const) {
      expect((await failsWith({ systems: { uids: [s.uid] }, settings: [setting] }, 'settings.unknown')).error?.message).toBe(message)
    }
  })

  it('operation.protocol.not.found.on.system.for.encoding: a protocol its applications do not speak, or none at all', async () => {
    const s = await actionSystem(stack, [app])
    const silent = await actionSystem(stack, [await newApplication(stack, { protocols: [], data: tree })])
    const code = 'operation.protocol.not.found.on.system.for.encoding'
    await failsWith({ systems: { uids: [s.uid] }, settings: level, protocol: 'SPARKPLUG' }, code)
    await failsWith({ systems: { uids: [silent.uid] }, settings: level }, code)
  })

  it('operation.on.system.missing.comm.identifiers: no password for the protocol', async () => {
    const s = await actionSystem(stack, [app], { passwords: false })
    await failsWith({ systems: { uids: [s.uid] }, settings: level }, 'operation.on.system.missing.comm.identifiers')
    // Nothing was tried on the device: the system's sync is untouched.
    expect((await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${s.uid}` })).json().syncStatus).toBe('NOT_SYNC')
  })

  it('protocol: the named transport carries the write', async () => {
    const s = await actionSystem(stack, [both])
    const uid = await started(post({ systems: { uids: [s.uid] }, settings: level, protocol: 'REST' }))
    await single(uid)
    expect(await deviceTasksOf(stack, uid)).toMatchObject([{ protocol: 'REST', body: { write: [{ 'conf.level': 3 }] } }])
    expect((await getOperation(stack, uid)).parameters).toMatchObject({ protocol: 'REST' })
    await cancel(uid)
  })
})
