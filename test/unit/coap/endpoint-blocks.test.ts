// Block-wise transfers between two endpoints (RFC 7959): a large response pulled (Block2), a large request body sent
// and reassembled (Block1), size negotiation both ways, and the refusals: 4.13 over the size limit, 4.08 for a block
// out of place, a body over our limit, a representation changing during the transfer.
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  CoapCode, MessageType, OptionNumber, coapRequest, decodeBlock, encodeBlock, encodeMessage, getOption, getUintOption,
  readBlock, uriPathOf, withOption, type CoapMessage, type RequestHandler
} from '../../../protocols/coap/index.js'
import { pair, settle, type Pair } from './pair.js'

let p: Pair
afterEach(() => { p.close() })

const big = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251))
const blocksOf = (p: Pair, from: 'A' | 'B', n: number): string[] =>
  p.wire.filter((d) => d.from === from).map((d) => {
    const b = readBlock(d.msg as CoapMessage, n)
    return typeof b === 'object' ? `${b.num}/${b.more ? 1 : 0}/${16 << b.szx}` : '-'
  })

describe('Block2: a large response', () => {
  it('is served in 1024-byte blocks with Size2, pulled to the end, and the handler runs once', async () => {
    const handler = vi.fn<RequestHandler>(() => ({ code: CoapCode.Content, payload: big }))
    p = pair({}, { handler })
    const res = await p.a.request('B', coapRequest('GET', '/5/0/0'))
    expect(res.payload).toEqual(big)
    expect(getOption(res, OptionNumber.Block2)).toBeUndefined()
    expect(blocksOf(p, 'B', OptionNumber.Block2)).toEqual(['0/1/1024', '1/1/1024', '2/1/1024', '3/1/1024', '4/0/1024'])
    expect(blocksOf(p, 'A', OptionNumber.Block2)).toEqual(['-', '1/0/1024', '2/0/1024', '3/0/1024', '4/0/1024'])
    expect(getUintOption(p.wire[1]?.msg as CoapMessage, OptionNumber.Size2)).toBe(5000)
    expect(handler).toHaveBeenCalledTimes(1)
  })

  it('a server with smaller blocks (SZX 2) is followed at its size', async () => {
    p = pair({}, { handler: () => ({ code: CoapCode.Content, payload: big.subarray(0, 200) }), limits: { blockSzx: 2 } })
    expect((await p.a.request('B', coapRequest('GET', '/'))).payload).toEqual(big.subarray(0, 200))
    expect(blocksOf(p, 'B', OptionNumber.Block2)).toEqual(['0/1/64', '1/1/64', '2/1/64', '3/0/64'])
  })

  it('without the kept body (evicted), the handler is asked again for each block (stateless serving)', async () => {
    const handler = vi.fn<RequestHandler>(() => ({ code: CoapCode.Content, payload: big }))
    p = pair({}, { handler, limits: { maxServedBodiesPerPeer: 0 } })
    expect((await p.a.request('B', coapRequest('GET', '/'))).payload).toEqual(big)
    expect(handler).toHaveBeenCalledTimes(5)
  })

  it('a body over our maxBodySize fails with coap.block.too.large (Size2 tells it at block 0)', async () => {
    p = pair({ limits: { maxBodySize: 3000 } }, { handler: () => ({ code: CoapCode.Content, payload: big }) })
    await expect(p.a.request('B', coapRequest('GET', '/'))).rejects.toMatchObject({ code: 'coap.block.too.large' })
  })

  it('a representation that changes meanwhile (another ETag) fails with coap.block.etag.changed', async () => {
    let version = 0
    p = pair({}, {
      handler: () => ({ code: CoapCode.Content, options: withOption([], OptionNumber.ETag, Buffer.from([++version])), payload: big }),
      limits: { maxServedBodiesPerPeer: 0 }
    })
    await expect(p.a.request('B', coapRequest('GET', '/'))).rejects.toMatchObject({ code: 'coap.block.etag.changed' })
  })

  it('a block past the end is 4.02', async () => {
    p = pair({}, { handler: () => ({ code: CoapCode.Content, payload: 'short' }) })
    const res = await p.a.request('B', { code: CoapCode.GET, options: withOption([], OptionNumber.Block2, encodeBlock({ num: 3, more: false, szx: 0 })) })
    expect(res.code).toBe(CoapCode.BadOption)
  })
})

describe('Block1: a large request body', () => {
  it('goes in 1024-byte blocks, Size1 first, 2.31 Continue each, the handler gets the whole body once', async () => {
    const handler = vi.fn<RequestHandler>((req) => ({ code: CoapCode.Changed, payload: `${req.payload.length} at ${uriPathOf(req)}` }))
    p = pair({}, { handler })
    const res = await p.a.request('B', coapRequest('PUT', '/5/0/0', { payload: big }))
    expect(res.payload.toString()).toBe('5000 at /5/0/0')
    expect(handler).toHaveBeenCalledTimes(1)
    expect(handler.mock.calls[0]?.[0].payload).toEqual(big)
    expect(getOption(handler.mock.calls[0]?.[0] as CoapMessage, OptionNumber.Block1)).toBeUndefined()
    expect(blocksOf(p, 'A', OptionNumber.Block1)).toEqual(['0/1/1024', '1/1/1024', '2/1/1024', '3/1/1024', '4/0/1024'])
    expect(p.trace().filter((t) => t.startsWith('B'))).toEqual([...Array(4).fill('B ACK 2.31'), 'B ACK 2.04'])
    expect(blocksOf(p, 'B', OptionNumber.Block1).at(-1)).toBe('4/0/1024') // the final response echoes the last block
    expect(getUintOption(p.wire[0]?.msg as CoapMessage, OptionNumber.Size1)).toBe(5000)
  })

  it('a server asking for smaller blocks is followed from the same byte offset (RFC 7959 figure 6)', async () => {
    const handler = vi.fn<RequestHandler>((req) => ({ code: CoapCode.Changed, payload: String(req.payload.length) }))
    p = pair({}, { handler, limits: { blockSzx: 4 } })
    const body = big.subarray(0, 1500)
    expect((await p.a.request('B', coapRequest('POST', '/', { payload: body }))).payload.toString()).toBe('1500')
    expect(handler.mock.calls[0]?.[0].payload).toEqual(body)
    expect(blocksOf(p, 'A', OptionNumber.Block1)).toEqual(['0/1/1024', '4/1/256', '5/0/256'])
  })

  it('over the server maxBodySize: 4.13 with Size1 = its limit, at the first block (Size1 announced)', async () => {
    const handler = vi.fn<RequestHandler>(() => ({ code: CoapCode.Changed }))
    p = pair({}, { handler, limits: { maxBodySize: 2000 } })
    const res = await p.a.request('B', coapRequest('PUT', '/', { payload: big }))
    expect(res.code).toBe(CoapCode.RequestEntityTooLarge)
    expect(getUintOption(res, OptionNumber.Size1)).toBe(2000)
    expect(p.wire.length).toBe(2)
    expect(handler).not.toHaveBeenCalled()
    expect(p.b.counters.refused['coap.block.too.large']).toBe(1)
  })

  it('over the limit without Size1: 4.13 when the limit is passed', async () => {
    p = pair({}, { limits: { maxBodySize: 40 } })
    const put = (num: number, more: boolean): Buffer => encodeMessage({
      type: MessageType.CON, code: CoapCode.PUT, messageId: num, token: Buffer.from([num]), options: withOption([], OptionNumber.Block1, encodeBlock({ num, more, szx: 0 })), payload: Buffer.alloc(16)
    })
    for (const n of [0, 1, 2]) p.b.receive('A', put(n, true))
    await settle()
    expect(p.wire.map((d) => d.msg?.code)).toEqual([CoapCode.Continue, CoapCode.Continue, CoapCode.RequestEntityTooLarge])
  })

  it('a block out of order, or without its start, is 4.08', async () => {
    p = pair()
    const put = (num: number, messageId: number, path = 'x'): Buffer => encodeMessage({
      type: MessageType.CON, code: CoapCode.PUT, messageId, token: Buffer.from([messageId]), options: withOption(withOption([], OptionNumber.UriPath, path), OptionNumber.Block1, encodeBlock({ num, more: true, szx: 0 })), payload: Buffer.alloc(16)
    })
    p.b.receive('A', put(3, 1))
    p.b.receive('A', put(0, 2, 'y'))
    p.b.receive('A', put(2, 3, 'y'))
    await settle()
    expect(p.wire.map((d) => d.msg?.code)).toEqual([CoapCode.RequestEntityIncomplete, CoapCode.Continue, CoapCode.RequestEntityIncomplete])
    expect(decodeBlock(getOption(p.wire[1]?.msg as CoapMessage, OptionNumber.Block1) as Buffer)).toEqual({ num: 0, more: true, szx: 0 })
    expect(p.b.gauges().transferBytes).toBe(0)
  })

  it('transfers per peer are bounded: the next one from that peer is 5.03', async () => {
    p = pair({}, { limits: { maxTransfersPerPeer: 1 } })
    const start = (path: string, messageId: number): Buffer => encodeMessage({
      type: MessageType.CON, code: CoapCode.PUT, messageId, token: Buffer.from([messageId]), options: withOption(withOption([], OptionNumber.UriPath, path), OptionNumber.Block1, encodeBlock({ num: 0, more: true, szx: 0 })), payload: Buffer.alloc(16)
    })
    p.b.receive('A', start('one', 1))
    p.b.receive('A', start('two', 2))
    p.b.receive('C', start('two', 3))
    await settle()
    expect(p.wire.map((d) => d.msg?.code)).toEqual([CoapCode.Continue, CoapCode.ServiceUnavailable, CoapCode.Continue])
  })

  it('a large body with a large answer: Block1 up, then Block2 down', async () => {
    p = pair({}, { handler: (req) => ({ code: CoapCode.Changed, payload: Buffer.concat([req.payload, req.payload]) }) })
    const res = await p.a.request('B', coapRequest('POST', '/twice', { payload: big.subarray(0, 3000) }))
    expect(res.payload).toEqual(Buffer.concat([big.subarray(0, 3000), big.subarray(0, 3000)]))
  })
})
