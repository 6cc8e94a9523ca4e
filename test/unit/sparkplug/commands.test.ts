// Device tasks → NCMD / DCMD and what ends them (ingest/sparkplug/commands.ts; docs/protocols/sparkplug.md):
// writes go to the node or to a device born under it with the BIRTH's datatype, a report ends them (OK when the
// value is the one written, ERROR naming it otherwise, Float rounding allowed), a retrieve is answered from the
// session's values or asks a rebirth, reboots end on a death or birth; BIRTH and DATA metrics → points.
import { describe, expect, it } from 'vitest'
import { planTask, sameValue, settle } from '../../../ingest/sparkplug/commands.js'
import { convert } from '../../../ingest/sparkplug/points.js'
import { createEdgeNodes, metricKey, type EdgeNode } from '../../../ingest/sparkplug/edge-nodes.js'
import type { BusClient } from '../../../ingest/mqtt/namespaces.js'
import { DataType, type SparkplugPayload } from '../../../protocols/sparkplug/index.js'

const session = { systemUid: 'sys', companyUid: 'co', username: 'SN1' }
const client: BusClient = { session, clientId: 'c', close: () => {} }

function node (): EdgeNode {
  const n = createEdgeNodes().born(session, client, 'g', 'SN1', '0', 0)
  n.metrics.set(metricKey(undefined, 'threshold'), { name: 'threshold', datatype: DataType.Float })
  n.metrics.set(metricKey('pump1', 'Outputs/Run'), { name: 'Outputs/Run', datatype: DataType.Boolean, device: 'pump1' })
  n.devices.add('pump1')
  n.actions = new Map([['system.reboot', 'REBOOT'], ['system.reset', 'RESET'], ['system.connect', 'CONNECT']])
  return n
}

describe('planTask', () => {
  it('a write: node metrics in one NCMD, a device\'s in a DCMD, datatypes from the BIRTH or the value', () => {
    const plan = planTask(node(), { uid: 't1', timestamp: 0, write: [{ threshold: 21.5 }, { 'pump1/Outputs/Run': true }, { 'new.metric': 3 }] })
    expect(plan).toEqual({
      kind: 'send',
      commands: [
        { metrics: [{ name: 'threshold', datatype: DataType.Float, value: 21.5 }, { name: 'new.metric', datatype: DataType.Int64, value: 3 }] },
        { device: 'pump1', metrics: [{ name: 'Outputs/Run', datatype: DataType.Boolean, value: true }] }
      ],
      awaiting: { uid: 't1', kind: 'write', pending: new Map<string, unknown>([['threshold', 21.5], ['new.metric', 3], ['pump1/Outputs/Run', true]]) }
    })
  })

  it('a `/` in a data id names a device only when one was born with that id', () => {
    const plan = planTask(node(), { uid: 't', timestamp: 0, write: [{ 'valve2/Open': false }] })
    expect(plan.kind === 'send' && plan.commands).toEqual([{ metrics: [{ name: 'valve2/Open', datatype: DataType.Boolean, value: false }] }])
  })

  it('actions: reboot is Node Control/Reboot awaited; wake-up OK and reset ERROR at once; another command a write sent', () => {
    const n = node()
    expect(planTask(n, { uid: 'r', timestamp: 0, command: { id: 'system.reboot', params: {} } })).toEqual({
      kind: 'send', commands: [{ metrics: [{ name: 'Node Control/Reboot', datatype: DataType.Boolean, value: true }] }], awaiting: { uid: 'r', kind: 'reboot' }
    })
    expect(planTask(n, { uid: 'w', timestamp: 0, command: { id: 'system.connect', params: {} } })).toEqual({ kind: 'answer', answer: { uid: 'w', status: 'OK', message: null } })
    expect(planTask(n, { uid: 'x', timestamp: 0, command: { id: 'system.reset', params: {} } })).toMatchObject({ kind: 'answer', answer: { uid: 'x', status: 'ERROR' } })
    expect(planTask(n, { uid: 'c', timestamp: 0, command: { id: 'Node Control/Next Server', params: {} } })).toEqual({
      kind: 'send', commands: [{ metrics: [{ name: 'Node Control/Next Server', datatype: DataType.Boolean, value: true }] }], answer: { uid: 'c', status: 'OK', message: null }
    })
  })

  it('a retrieve: from the session\'s values when it has them all, else a rebirth awaited', () => {
    const n = node()
    n.values.set('threshold', { ts: 1, value: 20 })
    expect(planTask(n, { uid: 'a', timestamp: 0, read: ['threshold'] })).toEqual({ kind: 'values', ids: ['threshold'], answer: { uid: 'a', status: 'OK', message: null } })
    expect(planTask(n, { uid: 'b', timestamp: 0, read: ['threshold', 'other'] })).toEqual({
      kind: 'send', commands: [{ metrics: [{ name: 'Node Control/Rebirth', datatype: DataType.Boolean, value: true }] }], awaiting: { uid: 'b', kind: 'read', ids: ['threshold', 'other'] }
    })
  })
})

describe('settle', () => {
  it('a write ends when every metric is reported: OK with the values written (Float rounding), ERROR naming one that differs', () => {
    const n = node()
    n.awaiting = [
      { uid: 'w1', kind: 'write', pending: new Map<string, number | boolean>([['threshold', 0.1], ['pump1/Outputs/Run', true]]) },
      { uid: 'w2', kind: 'write', pending: new Map([['other', 5]]) },
      { uid: 'r', kind: 'reboot' }
    ]
    expect(settle(n, new Map([['threshold', Math.fround(0.1)]]), false)).toEqual([])
    expect(settle(n, new Map<string, boolean | number>([['pump1/Outputs/Run', true], ['other', 6]]), false)).toEqual([
      { uid: 'w1', status: 'OK', message: null },
      { uid: 'w2', status: 'ERROR', message: 'other: the edge node reported 6, not 5' }
    ])
    expect(n.awaiting.map((a) => a.uid)).toEqual(['r'])
    expect(settle(n, new Map(), true)).toEqual([{ uid: 'r', status: 'OK', message: null }])
    expect(n.awaiting).toEqual([])
  })

  it('a retrieve ends once the session has every value', () => {
    const n = node()
    n.awaiting = [{ uid: 'q', kind: 'read', ids: ['a', 'b'] }]
    n.values.set('a', { ts: 1, value: 1 })
    expect(settle(n, new Map(), false)).toEqual([])
    n.values.set('b', { ts: 1, value: 2 })
    expect(settle(n, new Map(), false)).toEqual([{ uid: 'q', status: 'OK', message: null }])
  })

  it('sameValue: 64-bit text against a number, strings and booleans exactly', () => {
    expect(sameValue('9007199254740993', '9007199254740993')).toBe(true)
    expect(sameValue(5, '5')).toBe(true)
    expect(sameValue('on', 'On')).toBe(false)
    expect(sameValue(true, 1)).toBe(false)
  })
})

describe('convert', () => {
  const payload = (metrics: SparkplugPayload['metrics'], timestamp?: number): SparkplugPayload => ({ metrics, ...(timestamp === undefined ? {} : { timestamp }) })
  const m = (o: Partial<SparkplugPayload['metrics'][number]>): SparkplugPayload['metrics'][number] => ({ isNull: false, isHistorical: false, isTransient: false, raw: { kind: 'none' }, ...o })

  it('a BIRTH declares names and aliases; bdSeq is not a point; times: metric, payload, reception', () => {
    const out = convert(payload([
      m({ name: 'bdSeq', datatype: DataType.UInt64, raw: { kind: 'long', value: 3n } }),
      m({ name: 'a', alias: '1', datatype: DataType.Int16, raw: { kind: 'int', value: 0xffff }, timestamp: 5 }),
      m({ name: 'ds', datatype: DataType.DataSet, raw: { kind: 'complex' } })
    ], 9), undefined, undefined, true, 100)
    expect(out).toEqual({
      points: [{ dataId: 'a', ts: 5, value: -1 }],
      declared: [
        { metric: { name: 'bdSeq', datatype: DataType.UInt64 } },
        { metric: { name: 'a', datatype: DataType.Int16 }, alias: '1' },
        { metric: { name: 'ds', datatype: DataType.DataSet } }
      ],
      unresolved: 0
    })
  })

  it('DATA by alias takes the BIRTH\'s name and datatype; a device\'s alias is not the node\'s; unknown ones are counted', () => {
    const n = node()
    n.aliases.set('7', { name: 'Outputs/Run', datatype: DataType.Boolean, device: 'pump1' })
    const data = payload([m({ alias: '7', raw: { kind: 'boolean', value: true } }), m({ alias: '8', raw: { kind: 'int', value: 1 } })], 50)
    expect(convert(data, n, 'pump1', false, 100)).toEqual({ points: [{ dataId: 'pump1/Outputs/Run', ts: 50, value: true }], declared: [], unresolved: 1 })
    expect(convert(data, n, undefined, false, 100)).toMatchObject({ points: [], unresolved: 2 })
  })

  it('a NUL in a name or a text value refuses the payload', () => {
    expect(convert(payload([m({ name: 'a\u0000', datatype: DataType.Int32, raw: { kind: 'int', value: 1 } })]), undefined, undefined, true, 1)).toEqual({ refused: 'metric.name.invalid' })
    expect(convert(payload([m({ name: 'a', datatype: DataType.String, raw: { kind: 'string', value: 'x\u0000' } })]), undefined, undefined, true, 1)).toEqual({ refused: 'metric.value.invalid' })
  })
})
