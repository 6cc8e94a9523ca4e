// Observe between two endpoints (RFC 7641): A registers at B, B notifies (NON and CON, ACKed), stale notifications
// are dropped (§3.4), cancellation both ways (§3.6), the end of an observation by the server (§3.2), limits, and a
// notification larger than a block pulled block-wise (RFC 7959 §2.6).
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  CoapCode, MessageType, OptionNumber, coapRequest, encodeMessage, getUintOption, uriPathOf, withOption,
  type CoapMessage, type ObserverGoneReason, type RequestHandler
} from '../../../protocols/coap/index.js'
import { pair, settle, type Pair, type Side } from './pair.js'

interface Fixture { p: Pair, seen: string[], ends: string[], gone: ObserverGoneReason[], token: () => Buffer }

let p: Pair
afterEach(() => { p.close(); vi.useRealTimers() })

/** B serves /obs (observable) and /plain (not); A records the notifications it gets. */
function observed (aSide: Side = {}, bSide: Side = {}): Fixture {
  const gone: ObserverGoneReason[] = []
  let token = Buffer.alloc(0)
  const handler: RequestHandler = (req) => {
    if (uriPathOf(req) !== '/obs') return { code: CoapCode.Content, payload: 'plain' }
    token = Buffer.from(req.token)
    return { code: CoapCode.Content, options: withOption([], OptionNumber.Observe, 0), payload: 'v0' }
  }
  p = pair(aSide, { handler, onObserverGone: (_o, reason) => { gone.push(reason) }, ...bSide })
  return { p, seen: [], ends: [], gone, token: () => token }
}

async function register (f: Fixture, path = '/obs'): Promise<Awaited<ReturnType<Pair['a']['observe']>>> {
  return await f.p.a.observe('B', coapRequest('GET', path), {
    onNotification: (m) => { f.seen.push(m.payload.toString()) },
    onEnd: (reason, m) => { f.ends.push(`${reason} ${m?.code ?? ''}`) }
  })
}

describe('registration and notifications', () => {
  it('registers with Observe 0; NON and CON notifications reach the callback, CON ones are ACKed', async () => {
    const f = observed()
    const obs = await register(f)
    expect(obs.active).toBe(true)
    expect(obs.response.payload.toString()).toBe('v0')
    expect(getUintOption(f.p.wire[0]?.msg as CoapMessage, OptionNumber.Observe)).toBe(0)
    expect(f.p.b.servedObservers()).toMatchObject([{ peer: 'A', path: '/obs' }])
    expect(await f.p.b.notify('A', f.token(), { code: CoapCode.Content, payload: 'v1' })).toBe('sent')
    expect(await f.p.b.notify('A', f.token(), { code: CoapCode.Content, payload: 'v2' }, { confirmable: true })).toBe('acked')
    await settle()
    expect(f.seen).toEqual(['v1', 'v2'])
    expect(f.p.trace().slice(2)).toEqual(['B NON 2.05', 'B CON 2.05', 'A ACK 0.00'])
    const seqs = f.p.wire.filter((d) => d.from === 'B').map((d) => getUintOption(d.msg as CoapMessage, OptionNumber.Observe))
    expect(seqs[2]).toBeGreaterThan(seqs[1] as number) // increasing (§4.4)
  })

  it('a notification older than the newest seen is dropped (§3.4), though a CON one is still ACKed', async () => {
    const f = observed()
    await register(f)
    await f.p.b.notify('A', f.token(), { code: CoapCode.Content, payload: 'v1' })
    await settle()
    const newest = getUintOption(f.p.wire.at(-1)?.msg as CoapMessage, OptionNumber.Observe) as number
    const old = encodeMessage({
      type: MessageType.CON, code: CoapCode.Content, messageId: 4242, token: f.token(), options: withOption([], OptionNumber.Observe, newest - 1), payload: Buffer.from('old')
    })
    f.p.a.receive('B', old)
    await settle()
    expect(f.seen).toEqual(['v1'])
    expect(f.p.a.counters.staleNotifications).toBe(1)
    expect(f.p.trace().at(-1)).toBe('A ACK 0.00')
  })

  it('a peer that answers without Observe did not register us: inactive, nothing kept', async () => {
    const f = observed()
    const obs = await register(f, '/plain')
    expect(obs.active).toBe(false)
    expect(f.p.a.gauges().observations).toBe(0)
    expect(f.p.b.servedObservers()).toEqual([])
  })
})

describe('cancellation (§3.6) and the end of an observation', () => {
  it("cancel('get'): a GET with Observe 1 and the same token; the server forgets us", async () => {
    const f = observed()
    const obs = await register(f)
    const res = await obs.cancel()
    expect(res?.payload.toString()).toBe('v0')
    const dereg = f.p.wire[2]?.msg as CoapMessage
    expect(getUintOption(dereg, OptionNumber.Observe)).toBe(1)
    expect(dereg.token).toEqual(obs.token)
    expect(f.gone).toEqual(['deregistered'])
    expect(await f.p.b.notify('A', f.token(), { code: CoapCode.Content })).toBe('unknown')
  })

  it("cancel('forget'): the next notification is answered with a RST, which ends it at the server (CON and NON)", async () => {
    const f = observed()
    const obs = await register(f)
    await obs.cancel('forget')
    expect(await f.p.b.notify('A', f.token(), { code: CoapCode.Content, payload: 'x' }, { confirmable: true })).toBe('reset')
    expect(f.gone).toEqual(['reset'])
    const again = await register(f)
    await again.cancel('forget')
    expect(await f.p.b.notify('A', f.token(), { code: CoapCode.Content, payload: 'y' })).toBe('sent')
    await settle()
    expect(f.p.trace().at(-1)).toBe('A RST 0.00')
    expect(f.gone).toEqual(['reset', 'reset'])
    expect(f.seen).toEqual([])
  })

  it('a notification with an error code ends the observation on both sides (§3.2, §4.2)', async () => {
    const f = observed()
    await register(f)
    expect(await f.p.b.notify('A', f.token(), { code: CoapCode.NotFound })).toBe('ended')
    await settle()
    expect(f.ends).toEqual([`server ${CoapCode.NotFound}`])
    expect(f.gone).toEqual(['ended'])
    expect(f.p.a.gauges().observations).toBe(0)
  })

  it('a CON notification never ACKed removes the observer (§4.5)', async () => {
    vi.useFakeTimers()
    const f = observed({}, { params: { ackTimeoutMs: 100, maxRetransmit: 2 } })
    await register(f)
    f.p.drop((d) => d.from === 'B')
    const outcome = f.p.b.notify('A', f.token(), { code: CoapCode.Content }, { confirmable: true })
    await vi.advanceTimersByTimeAsync(700)
    expect(await outcome).toBe('timeout')
    expect(f.gone).toEqual(['timeout'])
  })

  it('forgetPeer ends observations both ways: onEnd("gone") here, observer gone there', async () => {
    const f = observed()
    await register(f)
    f.p.a.forgetPeer('B')
    f.p.b.forgetPeer('A')
    expect(f.ends).toEqual(['gone '])
    expect(f.gone).toEqual(['gone'])
    expect([f.p.a.gauges().observations, f.p.b.gauges().observers]).toEqual([0, 0])
  })

  it('closing ends our observations with onEnd("closed")', async () => {
    const f = observed()
    await register(f)
    f.p.a.close()
    expect(f.ends).toEqual(['closed '])
  })
})

describe('limits', () => {
  it('maxObservationsPerPeer on the client: coap.observe.limit', async () => {
    const f = observed({ limits: { maxObservationsPerPeer: 1 } })
    await register(f)
    await expect(register(f)).rejects.toMatchObject({ code: 'coap.observe.limit' })
  })
  it('maxObserversPerPeer on the server: the registration is answered without Observe', async () => {
    const f = observed({}, { limits: { maxObserversPerPeer: 1 } })
    expect((await register(f)).active).toBe(true)
    const second = await register(f)
    expect(second.active).toBe(false)
    expect(getUintOption(second.response, OptionNumber.Observe)).toBeUndefined()
    expect(f.p.b.counters.refused['coap.observers.limit']).toBe(1)
  })
})

describe('large notifications (RFC 7959 §2.6)', () => {
  it('the first block is the notification; the client pulls the rest and delivers the whole body', async () => {
    const f = observed()
    await register(f)
    const body = 'n'.repeat(2500) + '!'
    await f.p.b.notify('A', f.token(), { code: CoapCode.Content, payload: body })
    await vi.waitFor(() => { expect(f.seen).toEqual([body]) })
    const pulls = f.p.wire.slice(3).filter((d) => d.from === 'A' && d.msg?.type === MessageType.CON)
    expect(pulls.length).toBe(2)
    expect(pulls.every((d) => getUintOption(d.msg as CoapMessage, OptionNumber.Observe) === undefined)).toBe(true)
  })
})
