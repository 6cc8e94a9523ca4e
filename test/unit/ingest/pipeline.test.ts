// ingest/pipeline.ts: decode → normalise → accept or refuse (counted) → outcome, for data and for acks, with the
// decoder the transport gives. The ingest service is a hand-written fake of the three methods the pipeline uses.
import { describe, expect, it } from 'vitest'
import type { DeviceMessage } from '../../../core/domain/device-message.js'
import { createPipeline, type AckDecoder, type DataDecoder } from '../../../ingest/pipeline.js'

function fakeIngest (opts: { failAccept?: boolean } = {}) {
  const accepted: DeviceMessage[] = []
  const acks: Array<{ systemUid: string, protocol: string, acks: unknown[] }> = []
  const refused: string[] = []
  return {
    accepted,
    acks,
    refused,
    ingest: {
      accept: async (m: DeviceMessage) => { if (opts.failAccept === true) throw new Error('store away'); accepted.push(m) },
      acceptAcks: async (systemUid: string, protocol: string, a: readonly unknown[]) => { acks.push({ systemUid, protocol, acks: [...a] }); return [] },
      refuse: (protocol: string, reason: string) => { refused.push(`${protocol}:${reason}`) }
    }
  }
}

const session = { systemUid: 'sys-1', companyUid: 'co-1', username: 'SN1' }
// A decoder of "<id>=<number>" lines, standing for any transport's codec.
const lines: DataDecoder = (payload, receivedAt) => {
  const text = payload.toString()
  if (!/^(\w+=\d+\n?)+$/.test(text)) return { ok: false, reason: 'payload.malformed' }
  return { ok: true, points: text.trim().split('\n').map((l) => ({ dataId: l.split('=')[0] ?? '', ts: receivedAt, value: Number(l.split('=')[1]) })) }
}
const okAcks: AckDecoder = (payload) => payload.length === 0 ? { ok: false, reason: 'payload.empty' } : { ok: true, acks: [{ uid: payload.toString(), status: 'OK', message: null }] }

describe('data', () => {
  it('stores what the decoder reads as one message of the protocol, stamped with the reception time', async () => {
    const f = fakeIngest()
    const p = createPipeline({ ingest: f.ingest, now: () => 1000, protocol: 'M3DA' })
    expect(await p.data(session, Buffer.from('a=1\nb=2'), lines)).toEqual({ kind: 'stored' })
    expect(f.accepted).toHaveLength(1)
    expect(f.accepted[0]).toMatchObject({
      systemUid: 'sys-1',
      companyUid: 'co-1',
      protocol: 'M3DA',
      receivedAt: 1000,
      timestamp: 1000,
      nbDataPoints: 2,
      points: [{ dataId: 'a', ts: 1000, value: 1 }, { dataId: 'b', ts: 1000, value: 2 }]
    })
    expect(f.refused).toEqual([])
  })

  it('refuses and counts what the decoder refuses; nothing is stored', async () => {
    const f = fakeIngest()
    const p = createPipeline({ ingest: f.ingest, now: () => 1000, protocol: 'REST' })
    expect(await p.data(session, Buffer.from('garbage'), lines)).toEqual({ kind: 'refused', reason: 'payload.malformed' })
    expect(f.accepted).toEqual([])
    expect(f.refused).toEqual(['REST:payload.malformed'])
  })

  it('a store failure is thrown to the transport (no acknowledgement), not turned into a refusal', async () => {
    const f = fakeIngest({ failAccept: true })
    const p = createPipeline({ ingest: f.ingest, now: () => 1000, protocol: 'MQTT' })
    await expect(p.data(session, Buffer.from('a=1'), lines)).rejects.toThrow('store away')
    expect(f.refused).toEqual([])
  })

  it('uses the normaliser the transport gives', async () => {
    const f = fakeIngest()
    const p = createPipeline({
      ingest: f.ingest,
      now: () => 5,
      protocol: 'SPARKPLUG',
      normalise: (points, device, protocol, receivedAt, newUid) => ({ uid: newUid(), systemUid: device.systemUid, companyUid: device.companyUid, protocol, receivedAt, timestamp: receivedAt, points: points.map((x) => ({ ...x, dataId: `x.${x.dataId}` })), nbDataPoints: points.length })
    })
    await p.data(session, Buffer.from('a=1'), lines)
    expect(f.accepted[0]?.points).toEqual([{ dataId: 'x.a', ts: 5, value: 1 }])
  })
})

describe('acks and refusals', () => {
  it('passes decoded acks to the ingest service with the system and protocol', async () => {
    const f = fakeIngest()
    const p = createPipeline({ ingest: f.ingest, now: () => 1, protocol: 'MQTT' })
    expect(await p.acks(session, Buffer.from('task-1'), okAcks)).toEqual({ kind: 'stored' })
    expect(f.acks).toEqual([{ systemUid: 'sys-1', protocol: 'MQTT', acks: [{ uid: 'task-1', status: 'OK', message: null }] }])
    expect(await p.acks(session, Buffer.alloc(0), okAcks)).toEqual({ kind: 'refused', reason: 'payload.empty' })
    expect(f.refused).toEqual(['MQTT:payload.empty'])
  })

  it('a forbidden topic is its own outcome (MQTT 5 answers it 0x87), counted like any refusal', () => {
    const f = fakeIngest()
    const p = createPipeline({ ingest: f.ingest, now: () => 1, protocol: 'MQTT' })
    expect(p.refuse('topic.forbidden')).toEqual({ kind: 'forbidden' })
    expect(p.refuse('topic.unsupported')).toEqual({ kind: 'refused', reason: 'topic.unsupported' })
    expect(f.refused).toEqual(['MQTT:topic.forbidden', 'MQTT:topic.unsupported'])
  })
})
