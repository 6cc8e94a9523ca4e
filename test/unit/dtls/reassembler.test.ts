// Handshake reassembly (RFC 6347 §4.2.2–4.2.3): in message_seq order, from fragments in any order, overlapping or
// repeated, within bounds.
import { describe, expect, it } from 'vitest'
import { MAX_MESSAGES_AHEAD, MAX_REASSEMBLY_BYTES, type HandshakeFragment } from '../../../protocols/dtls/index.js'
import { Reassembler } from '../../../protocols/dtls/reassembler.js'

function frag (messageSeq: number, body: Buffer, fragmentOffset = 0, length = body.length, msgType = 1): HandshakeFragment {
  return { msgType, length, messageSeq, fragmentOffset, body }
}

const body = Buffer.from('0123456789abcdefghij')

describe('Reassembler', () => {
  it('hands out whole messages in message_seq order, holding one that came early', () => {
    const r = new Reassembler()
    expect(r.push(frag(1, Buffer.from('second')), 0)).toBe('kept')
    expect(r.pop()).toBeUndefined()
    expect(r.push(frag(0, Buffer.from('first')), 0)).toBe('kept')
    expect(r.pop()?.body.toString()).toBe('first')
    expect(r.pop()?.body.toString()).toBe('second')
    expect(r.pop()).toBeUndefined()
    expect(r.next).toBe(2)
  })

  it('joins fragments in any order, overlapping and repeated', () => {
    const r = new Reassembler()
    r.push(frag(0, body.subarray(12), 12, body.length), 0)
    r.push(frag(0, body.subarray(0, 8), 0, body.length), 0)
    expect(r.pop()).toBeUndefined()
    r.push(frag(0, body.subarray(0, 8), 0, body.length), 0) // repeated
    r.push(frag(0, body.subarray(5, 14), 5, body.length), 0) // overlaps both
    const m = r.pop()
    expect(m?.body).toEqual(body)
    expect(m?.epoch).toBe(0)
  })

  it('calls a fragment of an earlier message old (the peer retransmitted)', () => {
    const r = new Reassembler(3)
    expect(r.push(frag(2, body), 0)).toBe('old')
  })

  it('ignores a fragment too far ahead', () => {
    const r = new Reassembler()
    expect(r.push(frag(MAX_MESSAGES_AHEAD, body), 0)).toBe('ignored')
    expect(r.push(frag(MAX_MESSAGES_AHEAD - 1, body), 0)).toBe('kept')
  })

  it('refuses fragments of one message that disagree on type, length or epoch', () => {
    const r = new Reassembler()
    r.push(frag(0, body.subarray(0, 4), 0, 20, 1), 0)
    expect(r.push(frag(0, body.subarray(4, 8), 4, 20, 2), 0)).toBe('bad')
    expect(r.push(frag(0, body.subarray(4, 8), 4, 21, 1), 0)).toBe('bad')
    expect(r.push(frag(0, body.subarray(4, 8), 4, 20, 1), 1)).toBe('bad')
  })

  it('holds at most MAX_REASSEMBLY_BYTES across messages', () => {
    const r = new Reassembler()
    const half = MAX_REASSEMBLY_BYTES / 2
    expect(r.push(frag(0, Buffer.alloc(1), 0, half), 0)).toBe('kept')
    expect(r.push(frag(1, Buffer.alloc(1), 0, half), 0)).toBe('kept')
    expect(r.push(frag(2, Buffer.alloc(1), 0, 1), 0)).toBe('ignored')
  })

  it('hands out an empty message (ServerHelloDone)', () => {
    const r = new Reassembler()
    r.push(frag(0, Buffer.alloc(0), 0, 0, 14), 0)
    expect(r.pop()).toMatchObject({ msgType: 14, messageSeq: 0 })
  })
})
