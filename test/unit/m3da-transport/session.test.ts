// The session handler never throws and never answers 500 on what a device may send (ingest/m3da/session.ts): random
// payloads and header fields in well-formed envelopes, for an unsecured and a secured device, with the store faked.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { pino } from 'pino'
import { decodeEnvelope, encodeEnvelope, type Envelope } from '../../../protocols/m3da/index.js'
import type { Encodable } from '../../../protocols/bysant/index.js'
import { createPipeline } from '../../../ingest/pipeline.js'
import { createSessionHandler, type Peer } from '../../../ingest/m3da/session.js'
import type { DevicesService } from '../../../core/services/ingest/devices.service.js'
import type { M3daDevice } from '../../../ingest/m3da/m3da-devices.js'
import { createTurnGate } from '../../../ingest/m3da/turn-gate.js'
import { noDeviceLimits } from '../../../ingest/device-limits.js'

function handlerFor (device: M3daDevice) {
  const refused: string[] = []
  const m3da = {
    lookup: async () => ({ ok: true as const, device }),
    nonce: async () => null,
    setNonce: () => {},
    tickets: async () => new Map<string, number>(),
    tasksOf: async () => new Map<number, string>(),
    release: async () => {},
    setPassword: async () => {},
    flush: async () => {}
  }
  const guarded = async <T>(_p: string, _u: string, _ip: string, check: () => Promise<{ value: T }>) => ({ value: (await check()).value })
  const devices = { authenticate: async () => ({ ok: false, reason: 'device.unknown' }), guarded } as unknown as DevicesService
  const ingest = { accept: async () => {}, acceptAcks: async () => [], refuse: (_p: string, r: string) => { refused.push(r) }, takeTasks: async () => [] }
  const pipeline = createPipeline({ ingest, now: () => 1_700_000_000_000, protocol: 'M3DA' })
  return { handler: createSessionHandler({ devices, m3da, ingest, pipeline, serverId: 'AIRVANTAGE', log: pino({ level: 'silent' }), limits: noDeviceLimits }), refused }
}

const device = (password: string | null): M3daDevice => ({
  session: { systemUid: 's1', companyUid: 'c1', username: 'DEV' },
  password,
  registrationPassword: null,
  authentication: password === null ? 'none' : null,
  encryption: null,
  actions: new Map()
})

const peer = (): Peer => ({ ip: '127.0.0.1', challenged: false, packages: 0 })
const field = fc.oneof(fc.constant(null), fc.integer(), fc.string(), fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b)))

describe('M3DA session handler', () => {
  for (const password of [null, 'a-password'] as const) {
    it(`answers random envelopes (${password === null ? 'unsecured' : 'secured'} device) without throwing or a 500`, async () => {
      const { handler } = handlerFor(device(password))
      await fc.assert(fc.asyncProperty(
        fc.uint8Array({ maxLength: 200 }), fc.dictionary(fc.constantFrom('status', 'nonce', 'challenge', 'autoreg_salt', 'mac', 'x'), field), fc.dictionary(fc.constantFrom('mac', 'y'), field),
        async (payload, header, footer) => {
          const answer = await handler.handle(peer(), asReceived({ header: { ...header, id: 'DEV' }, payload: Buffer.from(payload), footer }))
          expect(answer.status).not.toBe(500)
        }), { numRuns: 500 })
    })
  }

  it('an envelope without an id is refused 400 and counted', async () => {
    const { handler, refused } = handlerFor(device(null))
    const answer = await handler.handle(peer(), { header: {}, payload: Buffer.alloc(0), footer: {} })
    expect(answer.status).toBe(400)
    expect(refused).toEqual(['m3da.id.missing'])
  })
})

describe('turn gate', () => {
  it('releases the waits of one turn together, in order', async () => {
    const turn = createTurnGate()
    const order: number[] = []
    await Promise.all([1, 2, 3].map(async (n) => { await turn(); order.push(n) }))
    expect(order).toEqual([1, 2, 3])
  })
})

/** The envelope as the transport hands it to the handler: encoded as a device would, then decoded. */
function asReceived (e: { header: Record<string, Encodable>, payload: Buffer, footer: Record<string, Encodable> }): Envelope {
  const d = decodeEnvelope(encodeEnvelope(e))
  if (!d.ok) throw new Error(d.reason)
  return d.envelope
}
