// Random payloads on the Sparkplug B topics of the embedded broker: random bytes, mutated valid payloads and
// structurally valid payloads with random metrics, seq, aliases and datatypes, as every message type of the node's own
// namespace. The connection stays, nothing answers 500 or crashes the process (an uncaught error would fail the run),
// every undecodable payload is counted as a refusal, and the node still births and reports afterwards.
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { endAll, eventually, messagesOf, publish, refusedCount } from '../../helpers/devices.js'
import { DataType, decodePayload, deviceTopic, encodePayload, nodeTopic } from '../../../protocols/sparkplug/index.js'
import { edgeSystem, rawNode, type EdgeSystem } from './fixtures.js'

let stack: Stack
let s: EdgeSystem
beforeAll(async () => {
  stack = await startStack({ listen: true })
  s = await edgeSystem(stack)
}, 120_000)
afterAll(async () => { await stack?.close() })

const GROUP = 'fuzz'
const TYPES = ['NBIRTH', 'NDATA', 'NDEATH', 'DBIRTH', 'DDATA', 'DDEATH'] as const
const topicOf = (type: typeof TYPES[number]): string => type.startsWith('N')
  ? nodeTopic(GROUP, type as 'NBIRTH', s.serial)
  : deviceTopic(GROUP, type as 'DBIRTH', s.serial, 'dev1')

const metric = fc.record({
  name: fc.option(fc.oneof(fc.constantFrom('bdSeq', 'a', 'b/c', 'Node Control/Rebirth'), fc.string({ maxLength: 300 })), { nil: undefined }),
  alias: fc.option(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), { nil: undefined }),
  timestamp: fc.option(fc.integer({ min: 0, max: 2 ** 53 - 1 }), { nil: undefined }),
  datatype: fc.integer({ min: 0, max: 40 }),
  value: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.string(), fc.constant(null), fc.constant('\u0000'))
})
const validish = fc.record({
  timestamp: fc.option(fc.integer({ min: 0, max: 2 ** 53 - 1 }), { nil: undefined }),
  seq: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
  metrics: fc.array(metric, { maxLength: 12 })
}).map((p) => {
  try {
    return encodePayload({ ...p, seq: p.seq === undefined ? undefined : Math.min(p.seq, 2 ** 32) })
  } catch {
    return Buffer.from('not encodable')
  }
})
const base = encodePayload({ timestamp: 1, seq: 0, metrics: [{ name: 'bdSeq', datatype: DataType.UInt64, value: 0 }, { name: 'a', alias: 1, datatype: DataType.Double, value: 1 }] })
const mutated = fc.array(fc.tuple(fc.nat(base.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }).map((edits) => {
  const b = Buffer.from(base)
  for (const [at, v] of edits) b[at] = v
  return b
})

describe('fuzzed payloads on spBv1.0 topics', () => {
  it('nothing crashes, the connection stays, refusals are counted; a clean node births and reports afterwards', async () => {
    const c = await rawNode(stack, s)
    try {
      let undecodable = 0
      const before = refusedCount(stack, 'SPARKPLUG:')
      await fc.assert(fc.asyncProperty(
        fc.constantFrom(...TYPES),
        fc.oneof(fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)), mutated, validish),
        async (type, payload) => {
          if (!decodePayload(payload).ok) undecodable++
          expect(await publish(c, topicOf(type), payload)).toBe(0)
          expect(c.connected).toBe(true)
        }), { numRuns: 300 })
      // Every payload that does not decode is one refusal (others may be refused too: birth missing, stale death).
      expect(refusedCount(stack, 'SPARKPLUG:') - before).toBeGreaterThanOrEqual(undecodable)
      expect(undecodable).toBeGreaterThan(0)

      await stack.ctx.services.ingest.drain()
      const stored = (await messagesOf(stack, s.uid)).length
      const birth = encodePayload({ timestamp: 1, seq: 0, metrics: [{ name: 'bdSeq', datatype: DataType.UInt64, value: 9 }, { name: 'after.fuzz', alias: 7, datatype: DataType.Double, value: 1 }] })
      expect(await publish(c, topicOf('NBIRTH'), birth)).toBe(0)
      const data = encodePayload({ timestamp: 2, seq: 1, metrics: [{ alias: 7, datatype: DataType.Double, value: 2.5 }] })
      expect(await publish(c, topicOf('NDATA'), data)).toBe(0)
      await eventually(async () => (await messagesOf(stack, s.uid)).length === stored + 2, 5000, 'the clean birth and data')
      await stack.ctx.services.ingest.drain()
      const last = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${s.uid}/data?ids=after.fuzz` })
      expect(last.json()).toEqual({ 'after.fuzz': [{ value: 2.5, timestamp: 2 }] })
    } finally {
      await endAll(c)
    }
  })
})
