// Sparkplug B edge nodes on the embedded broker (docs/protocols/sparkplug.md):
// Eclipse Tahu's own edge node client births and reports, and the API shows it (last data, raw points, messages with
// protocol SPARKPLUG); a skipped seq or an unknown alias (sent raw through mqtt.js) brings a rebirth request; the
// host STATE is retained; topic rights; NDEATH by the Will; a reboot, settings and a retrieve run as NCMD / DCMD.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { endAll, eventually, messagesOf, publish, refusedCount, subscribe, packetsOf } from '../../helpers/devices.js'
import { count, started, waitFinished } from '../../helpers/operations.js'
import { getSystem } from '../../helpers/systems.js'
import { DataType, encodePayload, nodeTopic, deviceTopic, stateTopic } from '../../../protocols/sparkplug/index.js'
import { asks, commandsOf, dropConnection, edgeSystem, rawNode, receivedOn, stopNode, tahuNode, type EdgeSystem, type TahuNode } from './fixtures.js'

let stack: Stack
const HOST_ID = 'fleet-test-host'
beforeAll(async () => { stack = await startStack({ listen: true, env: { SPARKPLUG_HOST_ID: HOST_ID } }) }, 120_000)
afterAll(async () => { await stack?.close() })

const GROUP = 'plant1'
const T = Date.UTC(2026, 10, 1, 12, 0, 0)

type Json = Record<string, any>
const json = async (url: string): Promise<Json> => {
  const res = await stack.call(stack.adminToken, { method: 'GET', url })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** The births of the node used below: node metrics with aliases, one device with one. */
function births (threshold = 30) {
  return (node: TahuNode): void => {
    node.publishNodeBirth({
      timestamp: T,
      metrics: [
        { name: 'Node Control/Rebirth', type: 'Boolean', value: false },
        { name: 'Node Control/Reboot', type: 'Boolean', value: false },
        { name: 'temperature', alias: 1, type: 'Double', value: 21.5 },
        { name: '_RSSI', alias: 2, type: 'Int32', value: -70 },
        { name: 'config.temperatureThreshold', alias: 3, type: 'Double', value: threshold },
        { name: 'label', type: 'String', value: 'line A' }
      ]
    })
    node.publishDeviceBirth('pump1', { timestamp: T, metrics: [{ name: 'Outputs/Run', alias: 10, type: 'Boolean', value: false }] })
  }
}

async function waitMessages (s: EdgeSystem, n: number, what: string): Promise<void> {
  await eventually(async () => (await messagesOf(stack, s.uid)).length >= n, 10_000, what)
}

describe('a Tahu edge node', () => {
  it('births and data reach the API: last data, raw points, messages with protocol SPARKPLUG; aliases resolved', async () => {
    const s = await edgeSystem(stack)
    const node = tahuNode(stack, s, GROUP, births())
    try {
      await waitMessages(s, 2, 'NBIRTH and DBIRTH')
      node.publishNodeData({ timestamp: T + 1000, metrics: [{ alias: 1, type: 'Double', value: 22.5 }] })
      node.publishDeviceData('pump1', { timestamp: T + 2000, metrics: [{ alias: 10, type: 'Boolean', value: true, timestamp: T + 1500 }] })
      await waitMessages(s, 4, 'NDATA and DDATA')
      await stack.ctx.services.ingest.drain()

      const messages = (await json(`/api/v1/systems/${s.uid}/messages?from=${T - 1}&to=${T + 10_000}`)).messages as Json[]
      // Newest first; the two births share their timestamp.
      expect(messages.map((m) => [m.protocol, m.nbDataPoints, m.timestamp]).sort()).toEqual([
        ['SPARKPLUG', 1, T + 1500], ['SPARKPLUG', 1, T + 1000], ['SPARKPLUG', 1, T], ['SPARKPLUG', 6, T]
      ].sort())
      const last = await json(`/api/v1/systems/${s.uid}/data`)
      expect(last).toMatchObject({
        temperature: [{ value: 22.5, timestamp: T + 1000 }],
        _RSSI: [{ value: -70, timestamp: T }],
        'config.temperatureThreshold': [{ value: 30, timestamp: T }],
        label: [{ value: 'line A', timestamp: T }],
        'pump1/Outputs/Run': [{ value: true, timestamp: T + 1500 }],
        'Node Control/Reboot': [{ value: false, timestamp: T }]
      })
      expect(last.bdSeq).toBeUndefined() // session bookkeeping, not data
      const raw = await json(`/api/v1/systems/data/raw?targetIds=${s.uid}&dataIds=temperature&from=${T - 1}&to=${T + 10_000}`)
      expect(raw[s.uid].temperature).toEqual([{ v: 22.5, ts: T + 1000 }, { v: 21.5, ts: T }])
      // _RSSI is a device-management id: it feeds System data (docs/devices.md).
      const system = await getSystem(stack, s.uid)
      expect(system.data.rssi).toBe(-70)
      expect(system.commStatus).toBe('OK')
    } finally {
      await stopNode(node)
    }
  })

  it('a lost connection: the Will (NDEATH, bdSeq of the NBIRTH) makes commStatus ERROR with lastCommFailureDate; a new NBIRTH makes it OK', async () => {
    const s = await edgeSystem(stack)
    const node = tahuNode(stack, s, GROUP, births())
    try {
      await waitMessages(s, 2, 'the births')
      await stack.ctx.services.ingest.drain()
      const before = Date.now()
      const stale = refusedCount(stack, 'SPARKPLUG:ndeath.stale')
      dropConnection(node) // Tahu's client reconnects (200 ms) and births again
      await eventually(async () => (await getSystem(stack, s.uid)).commStatus === 'ERROR', 10_000, 'commStatus ERROR')
      expect((await getSystem(stack, s.uid)).data.lastCommFailureDate).toBeGreaterThanOrEqual(before)
      await waitMessages(s, 4, 'the births after the reconnection')
      await stack.ctx.services.ingest.drain()
      expect((await getSystem(stack, s.uid)).commStatus).toBe('OK')
      expect(refusedCount(stack, 'SPARKPLUG:ndeath.stale')).toBe(stale)
    } finally {
      await stopNode(node)
    }
  })
})

describe('host STATE and topic rights', () => {
  it('the host STATE is retained: online, with a timestamp', async () => {
    const s = await edgeSystem(stack)
    const c = await rawNode(stack, s)
    try {
      expect(await subscribe(c, stateTopic(HOST_ID), 1)).toEqual([1])
      await eventually(async () => packetsOf(c).some((p) => p.cmd === 'publish' && p.topic === stateTopic(HOST_ID)), 5000, 'the STATE')
      const state = packetsOf(c).find((p) => p.cmd === 'publish' && p.topic === stateTopic(HOST_ID)) as { payload: Buffer, retain: boolean }
      expect(state.retain).toBe(true)
      expect(JSON.parse(state.payload.toString())).toEqual({ online: true, timestamp: expect.any(Number) })
    } finally {
      await endAll(c)
    }
  })

  it('a node publishes under its own edge node id only, never commands; subscribes to its own commands only', async () => {
    const s = await edgeSystem(stack)
    const other = await edgeSystem(stack)
    const c = await rawNode(stack, s)
    try {
      const forbidden = refusedCount(stack, 'SPARKPLUG:topic.forbidden')
      const birth = encodePayload({ timestamp: T, seq: 0, metrics: [{ name: 'bdSeq', datatype: DataType.UInt64, value: 0 }, { name: 'x', datatype: DataType.Int32, value: 1 }] })
      expect(await publish(c, nodeTopic(GROUP, 'NBIRTH', other.serial), birth)).toBe(0)
      expect(await publish(c, nodeTopic(GROUP, 'NCMD', s.serial), birth)).toBe(0)
      expect(await publish(c, deviceTopic(GROUP, 'DCMD', s.serial, 'd'), birth)).toBe(0)
      expect(await publish(c, stateTopic(HOST_ID), '{"online": false}', { qos: 1, retain: true })).toBe(0)
      expect(refusedCount(stack, 'SPARKPLUG:topic.forbidden')).toBe(forbidden + 4)
      expect(await messagesOf(stack, other.uid)).toEqual([])
      expect(await messagesOf(stack, s.uid)).toEqual([])
      expect(await subscribe(c, `spBv1.0/${GROUP}/NCMD/${other.serial}/#`, 0)).toEqual([0x80])
      expect(await subscribe(c, 'spBv1.0/#', 0)).toEqual([0x80])
      expect(await subscribe(c, `spBv1.0/${GROUP}/NDATA/${s.serial}`, 0)).toEqual([0x80])
      expect(await subscribe(c, `spBv1.0/${GROUP}/NCMD/${s.serial}/#`, 0)).toEqual([0])
      expect(await subscribe(c, `spBv1.0/+/DCMD/${s.serial}/#`, 0)).toEqual([0])
      expect(c.connected).toBe(true)
      // The host STATE it tried to retain is not the one kept.
      const watcher = await rawNode(stack, other)
      await subscribe(watcher, stateTopic(HOST_ID), 1)
      await eventually(async () => packetsOf(watcher).some((p) => p.cmd === 'publish'), 5000, 'the retained STATE')
      const kept = packetsOf(watcher).filter((p) => p.cmd === 'publish') as Array<{ payload: Buffer }>
      expect(kept.map((p) => JSON.parse(p.payload.toString()).online)).toEqual([true])
      await endAll(watcher)
      // Its own NBIRTH is stored.
      expect(await publish(c, nodeTopic(GROUP, 'NBIRTH', s.serial), birth)).toBe(0)
      expect((await messagesOf(stack, s.uid)).map((m) => m.protocol)).toEqual(['SPARKPLUG'])
    } finally {
      await endAll(c)
    }
  })
})

describe('sequencing (raw mqtt.js edge node)', () => {
  const birthOf = (bdSeq: number): Buffer => encodePayload({
    timestamp: T,
    seq: 0,
    metrics: [
      { name: 'bdSeq', datatype: DataType.UInt64, value: bdSeq },
      { name: 'level', alias: 5, datatype: DataType.Float, value: 1.5 }
    ]
  })
  const data = (seq: number, alias = 5, value = 2.5): Buffer => encodePayload({ timestamp: T + seq, seq, metrics: [{ alias, datatype: DataType.Float, value }] })
  const rebirthTopic = (s: EdgeSystem): string => nodeTopic(GROUP, 'NCMD', s.serial)

  it('a skipped seq brings a rebirth request (NCMD Node Control/Rebirth = true); the data is kept', async () => {
    const s = await edgeSystem(stack)
    const c = await rawNode(stack, s)
    try {
      await subscribe(c, `${rebirthTopic(s)}/#`, 0)
      await subscribe(c, rebirthTopic(s), 0)
      expect(await publish(c, nodeTopic(GROUP, 'NBIRTH', s.serial), birthOf(3))).toBe(0)
      expect(await publish(c, nodeTopic(GROUP, 'NDATA', s.serial), data(1))).toBe(0)
      expect(receivedOn(c, rebirthTopic(s))).toEqual([]) // in step: nothing asked
      expect(await publish(c, nodeTopic(GROUP, 'NDATA', s.serial), data(3, 5, 4.5))).toBe(0) // 2 skipped
      await eventually(async () => receivedOn(c, rebirthTopic(s)).length > 0, 5000, 'the rebirth request')
      expect(receivedOn(c, rebirthTopic(s)).map((p) => asks(p, 'Node Control/Rebirth'))).toEqual([true])
      expect((await messagesOf(stack, s.uid)).length).toBe(3)
      await stack.ctx.services.ingest.drain()
      expect((await json(`/api/v1/systems/${s.uid}/data?ids=level`)).level).toEqual([{ value: 4.5, timestamp: T + 3 }])
    } finally {
      await endAll(c)
    }
  })

  it('an unknown alias, and data before any NBIRTH, bring a rebirth request too; data before the birth is refused', async () => {
    const s = await edgeSystem(stack)
    const c = await rawNode(stack, s)
    try {
      await subscribe(c, rebirthTopic(s), 0)
      const missing = refusedCount(stack, 'SPARKPLUG:birth.missing')
      expect(await publish(c, nodeTopic(GROUP, 'NDATA', s.serial), data(1))).toBe(0)
      await eventually(async () => receivedOn(c, rebirthTopic(s)).length === 1, 5000, 'the rebirth request for data without birth')
      expect(refusedCount(stack, 'SPARKPLUG:birth.missing')).toBe(missing + 1)
      expect(await messagesOf(stack, s.uid)).toEqual([])

      const other = await edgeSystem(stack)
      const d = await rawNode(stack, other)
      await subscribe(d, rebirthTopic(other), 0)
      expect(await publish(d, nodeTopic(GROUP, 'NBIRTH', other.serial), birthOf(0))).toBe(0)
      expect(await publish(d, nodeTopic(GROUP, 'NDATA', other.serial), data(1, 99))).toBe(0)
      await eventually(async () => receivedOn(d, rebirthTopic(other)).length === 1, 5000, 'the rebirth request for an unknown alias')
      await endAll(d)
    } finally {
      await endAll(c)
    }
  })

  it('a stale NDEATH (another bdSeq than the NBIRTH\'s) is ignored and counted', async () => {
    const s = await edgeSystem(stack)
    const c = await rawNode(stack, s)
    try {
      expect(await publish(c, nodeTopic(GROUP, 'NBIRTH', s.serial), birthOf(7))).toBe(0)
      const stale = refusedCount(stack, 'SPARKPLUG:ndeath.stale')
      const death = (bdSeq: number): Buffer => encodePayload({ timestamp: T, metrics: [{ name: 'bdSeq', datatype: DataType.UInt64, value: bdSeq }] })
      expect(await publish(c, nodeTopic(GROUP, 'NDEATH', s.serial), death(6))).toBe(0)
      expect(refusedCount(stack, 'SPARKPLUG:ndeath.stale')).toBe(stale + 1)
      await stack.ctx.services.ingest.drain()
      expect((await getSystem(stack, s.uid)).commStatus).toBe('OK')
      // The same bdSeq from another connection than the NBIRTH's (an older one, whose Will comes late) is stale too.
      const older = await rawNode(stack, s)
      expect(await publish(older, nodeTopic(GROUP, 'NDEATH', s.serial), death(7))).toBe(0)
      expect(refusedCount(stack, 'SPARKPLUG:ndeath.stale')).toBe(stale + 2)
      expect((await getSystem(stack, s.uid)).commStatus).toBe('OK')
      await endAll(older)
      expect(await publish(c, nodeTopic(GROUP, 'NDEATH', s.serial), death(7))).toBe(0)
      expect((await getSystem(stack, s.uid)).commStatus).toBe('ERROR')
    } finally {
      await endAll(c)
    }
  })
})

describe('tasks as NCMD / DCMD', () => {
  it('a reboot operation reaches the Tahu node as NCMD Node Control/Reboot and ends SUCCESS with its death and rebirth', async () => {
    const s = await edgeSystem(stack)
    let birthCount = 0
    const birthsOf = births()
    const node = tahuNode(stack, s, GROUP, (n) => { birthCount++; birthsOf(n) })
    const received = commandsOf(node)
    // The node reboots when told: its connection drops (the Will is its NDEATH), then it connects and births again.
    node.on('ncmd', (p) => { if (asks(p, 'Node Control/Reboot')) dropConnection(node) })
    try {
      await waitMessages(s, 2, 'the births')
      const op = await started(stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/reboot', payload: { systems: { uids: [s.uid] } } }))
      const done = await waitFinished(stack, op, 20_000)
      expect(count(done, 'SUCCESS')).toBe(1)
      expect(received.some((p) => asks(p, 'Node Control/Reboot'))).toBe(true)
      await eventually(async () => birthCount >= 2, 10_000, 'the birth after the reboot')
    } finally {
      await stopNode(node)
    }
  })

  it('apply settings: NCMD with the BIRTH\'s datatype; SUCCESS when the node reports the value written', async () => {
    const s = await edgeSystem(stack)
    const node = tahuNode(stack, s, GROUP, births())
    const received = commandsOf(node)
    node.on('ncmd', (p) => {
      const m = p.metrics?.find((x) => x.name === 'config.temperatureThreshold')
      if (m !== undefined) node.publishNodeData({ timestamp: Date.now(), metrics: [{ name: 'config.temperatureThreshold', type: 'Double', value: m.value }] })
    })
    try {
      await waitMessages(s, 2, 'the births')
      const op = await started(stack.call(stack.adminToken, {
        method: 'POST',
        url: '/api/v1/operations/systems/settings',
        payload: { systems: { uids: [s.uid] }, settings: [{ key: 'config.temperatureThreshold', value: 42.5 }], reboot: false }
      }))
      const done = await waitFinished(stack, op, 20_000)
      expect(count(done, 'SUCCESS')).toBe(1)
      const write = received.flatMap((p) => p.metrics ?? []).find((m) => m.name === 'config.temperatureThreshold')
      expect(write).toMatchObject({ type: 'Double', value: 42.5 })
    } finally {
      await stopNode(node)
    }
  })

  it('apply settings to a device\'s metric: DCMD to that device; SUCCESS when its DDATA reports the value', async () => {
    // A company application that names the device's metric as a setting (data id `<device>/<metric>`).
    const created = await stack.call(stack.adminToken, {
      method: 'POST',
      url: '/api/v1/applications',
      payload: {
        name: 'Pump line',
        revision: '1',
        type: `pump.line.${Date.now()}`,
        category: 'FIRMWARE',
        communication: [{ type: 'SPARKPLUG', commIdType: 'SERIAL' }],
        data: [{ id: 'pump1/Outputs/Run', label: 'Run', elementType: 'setting', type: 'boolean' }]
      }
    })
    expect(created.statusCode, created.body).toBe(200)
    const s = await edgeSystem(stack, created.json().uid)
    const node = tahuNode(stack, s, GROUP, births())
    const dcmds: Array<{ device: string, metrics: unknown[] }> = []
    node.on('dcmd', (device, p) => {
      dcmds.push({ device, metrics: p.metrics ?? [] })
      const m = p.metrics?.find((x) => x.name === 'Outputs/Run')
      if (m !== undefined) node.publishDeviceData(device, { timestamp: Date.now(), metrics: [{ name: 'Outputs/Run', type: 'Boolean', value: m.value }] })
    })
    try {
      await waitMessages(s, 2, 'the births')
      const op = await started(stack.call(stack.adminToken, {
        method: 'POST',
        url: '/api/v1/operations/systems/settings',
        payload: { systems: { uids: [s.uid] }, settings: [{ key: 'pump1/Outputs/Run', value: true }], reboot: false }
      }))
      expect(count(await waitFinished(stack, op, 20_000), 'SUCCESS')).toBe(1)
      expect(dcmds).toEqual([{ device: 'pump1', metrics: [expect.objectContaining({ name: 'Outputs/Run', type: 'Boolean', value: true })] }])
    } finally {
      await stopNode(node)
    }
  })

  it('retrieve: answered from the values of the session', async () => {
    const s = await edgeSystem(stack)
    const node = tahuNode(stack, s, GROUP, births(33))
    try {
      await waitMessages(s, 2, 'the births')
      const op = await started(stack.call(stack.adminToken, {
        method: 'POST',
        url: '/api/v1/operations/systems/data/retrieve',
        payload: { systems: { uids: [s.uid] }, data: ['config.temperatureThreshold'] }
      }))
      const done = await waitFinished(stack, op, 20_000)
      expect(count(done, 'SUCCESS')).toBe(1)
      expect((await messagesOf(stack, s.uid)).length).toBe(3) // the births, and the values answered
    } finally {
      await stopNode(node)
    }
  })
})
