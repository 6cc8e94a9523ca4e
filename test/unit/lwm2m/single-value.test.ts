// The single-value formats (Core TS 1.1 §7.3): plain text typed by the object model, opaque raw bytes, CBOR (60)
// with Time as an epoch date (tag 1), link format for a Corelnk resource.
import { describe, expect, it } from 'vitest'
import { decodeContent, encodeContent, parsePath, type LwM2mPath, type WriteValue } from '../../../protocols/lwm2m/index.js'

const p = (text: string): LwM2mPath => { const x = parsePath(text); if (!x.ok) throw new Error(text); return x.path }
const decode = (format: number, payload: string | Buffer, path: string) => decodeContent(format, typeof payload === 'string' ? Buffer.from(payload) : payload, p(path))
const encoded = (format: number, values: WriteValue[]): string => { const e = encodeContent(format, values); return e.ok ? e.payload.toString('hex') : e.reason }

describe('plain text (0)', () => {
  it('types the text by the model: Integer, Float, Boolean, Time, Objlnk, String, Opaque in base64', () => {
    expect(decode(0, '123', '/3/0/9')).toEqual({ ok: true, values: [{ path: p('/3/0/9'), value: 123, type: 'Integer' }] })
    expect(decode(0, '-9223372036854775808', '/3/0/10')).toMatchObject({ values: [{ value: -(2n ** 63n) }] })
    expect(decode(0, '45.5e-1', '/6/0/0')).toMatchObject({ values: [{ value: 4.55, type: 'Float' }] })
    expect(decode(0, '1', '/1/0/6')).toMatchObject({ values: [{ value: true, type: 'Boolean' }] })
    expect(decode(0, '1367491215', '/3/0/13')).toMatchObject({ values: [{ value: new Date(1367491215_000), type: 'Time' }] })
    expect(decode(0, '11:0', '/1/0/10')).toMatchObject({ values: [{ value: { objectId: 11, instanceId: 0 }, type: 'Objlnk' }] })
    expect(decode(0, 'v1.2.3', '/3/0/3')).toMatchObject({ values: [{ value: 'v1.2.3', type: 'String' }] })
    expect(decode(0, 'AQID', '/5/0/0')).toMatchObject({ values: [{ value: Buffer.from([1, 2, 3]), type: 'Opaque' }] })
    expect(decode(0, '18446744073709551615', '/1/0/11')).toMatchObject({ values: [{ value: 2n ** 64n - 1n, type: 'Unsigned Integer' }] })
  })

  it('reads a resource the models do not know as a String; a resource instance like its resource', () => {
    expect(decode(0, '22.5', '/3303/0/5700')).toMatchObject({ values: [{ value: '22.5', type: 'String' }] })
    expect(decode(0, '3800', '/3/0/7/0')).toMatchObject({ values: [{ path: p('/3/0/7/0'), value: 3800 }] })
  })

  it('refuses text that is not of the type, and paths above a resource', () => {
    for (const [text, path] of [['12a', '/3/0/9'], ['1.5', '/3/0/9'], ['9223372036854775808', '/3/0/9'], ['-1', '/1/0/11'],
      ['true', '/1/0/6'], ['x', '/6/0/0'], ['3', '/1/0/10'], ['a*', '/5/0/0'], ['1e3', '/3/0/13']]) {
      expect(decode(0, text!, path!)).toEqual({ ok: false, reason: 'lwm2m.text.invalid' })
    }
    expect(decode(0, '1', '/3/0')).toEqual({ ok: false, reason: 'lwm2m.content.path.unsupported' })
    expect(decodeContent(0, Buffer.from('1'), null)).toEqual({ ok: false, reason: 'lwm2m.content.path.unsupported' })
    expect(decode(0, Buffer.from([0xff]), '/3/0/0')).toEqual({ ok: false, reason: 'lwm2m.text.invalid' })
    expect(decode(0, '', '/3/0/4')).toEqual({ ok: false, reason: 'lwm2m.content.type.mismatch' }) // an executable
  })

  it('writes one value as text', () => {
    const text = (values: WriteValue[]): string => Buffer.from(encoded(0, values), 'hex').toString()
    expect(text([{ path: p('/1/0/1'), value: 300 }])).toBe('300')
    expect(text([{ path: p('/1/0/6'), value: false }])).toBe('0')
    expect(text([{ path: p('/3/0/13'), value: new Date(1367491215_999) }])).toBe('1367491215')
    expect(text([{ path: p('/5/0/0'), value: Buffer.from([1, 2, 3]) }])).toBe('AQID')
    expect(encoded(0, [{ path: p('/1/0/1'), value: 1 }, { path: p('/1/0/2'), value: 1 }])).toBe('lwm2m.encode.single.value')
    expect(encoded(0, [{ path: p('/1/0/1'), value: 'x' }])).toBe('lwm2m.encode.type.mismatch')
    expect(encoded(0, [{ path: p('/6/0/0'), value: Number.NaN }])).toBe('lwm2m.encode.unrepresentable')
    expect(encoded(0, [{ path: p('/3/0/4'), value: '' }])).toBe('lwm2m.encode.executable')
  })
})

describe('opaque (42)', () => {
  it('carries raw bytes, no base64', () => {
    expect(decode(42, Buffer.from([0, 255, 10]), '/5/0/0')).toMatchObject({ values: [{ value: Buffer.from([0, 255, 10]), type: 'Opaque' }] })
    expect(decode(42, Buffer.from([1]), '/3/0/0')).toEqual({ ok: false, reason: 'lwm2m.content.type.mismatch' })
    expect(encoded(42, [{ path: p('/5/0/0'), value: Buffer.from([0, 255]) }])).toBe('00ff')
  })
})

describe('CBOR (60)', () => {
  it('reads integers, floats, text, bytes, booleans, Time as tag 1, Objlnk as text', () => {
    expect(decode(60, Buffer.from('1864', 'hex'), '/3/0/9')).toMatchObject({ values: [{ value: 100, type: 'Integer' }] })
    expect(decode(60, Buffer.from('fb4045000000000000', 'hex'), '/6/0/0')).toMatchObject({ values: [{ value: 42, type: 'Float' }] })
    expect(decode(60, Buffer.from('c11a5182428f', 'hex'), '/3/0/13')).toMatchObject({ values: [{ value: new Date(1367491215_000), type: 'Time' }] })
    expect(decode(60, Buffer.from('1a5182428f', 'hex'), '/3/0/13')).toMatchObject({ values: [{ value: new Date(1367491215_000) }] })
    expect(decode(60, Buffer.from('6431313a30', 'hex'), '/1/0/10')).toMatchObject({ values: [{ value: { objectId: 11, instanceId: 0 } }] })
    expect(decode(60, Buffer.from('f5', 'hex'), '/3303/0/5850')).toMatchObject({ values: [{ value: true, type: 'Boolean' }] })
  })

  it('refuses a CBOR item of another type, containers, garbage', () => {
    expect(decode(60, Buffer.from('6131', 'hex'), '/3/0/9')).toEqual({ ok: false, reason: 'lwm2m.cbor.type.mismatch' })
    expect(decode(60, Buffer.from('8101', 'hex'), '/3/0/9')).toEqual({ ok: false, reason: 'lwm2m.cbor.invalid' })
    expect(decode(60, Buffer.from('ff', 'hex'), '/3/0/9')).toEqual({ ok: false, reason: 'lwm2m.cbor.invalid' })
    expect(decode(60, Buffer.from('f6', 'hex'), '/3/0/9')).toEqual({ ok: false, reason: 'lwm2m.cbor.invalid' })
  })

  it('writes Time with tag 1, a Float as a float even when whole, bytes as a byte string', () => {
    expect(encoded(60, [{ path: p('/3/0/13'), value: new Date(1367491215_000) }])).toBe('c11a5182428f')
    expect(encoded(60, [{ path: p('/6/0/0'), value: 20 }])).toBe('f94d00')
    expect(encoded(60, [{ path: p('/5/0/0'), value: Buffer.from([1, 2]) }])).toBe('420102')
    expect(encoded(60, [{ path: p('/1/0/10'), value: { objectId: 11, instanceId: 0 } }])).toBe('6431313a30')
  })
})

describe('link format (40) for a Corelnk resource', () => {
  it('keeps the text once it parses as link format', () => {
    expect(decode(40, '</3/0>;ver=1.1', '/3442/0/1')).toMatchObject({ values: [{ value: '</3/0>;ver=1.1', type: 'Corelnk' }] })
    expect(decode(40, '</3/0', '/3442/0/1')).toEqual({ ok: false, reason: 'lwm2m.link.invalid' })
    expect(decode(40, '</3/0>', '/3/0/0')).toEqual({ ok: false, reason: 'lwm2m.content.type.mismatch' })
  })
})
