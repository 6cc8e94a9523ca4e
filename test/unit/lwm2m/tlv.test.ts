// TLV (OMA-TS-LightweightM2M 1.0 §6.4.3, Core 1.1 §7.4.3). The Device object instance of the TS's example
// (§6.4.3.1 in 1.0) is rebuilt here byte by byte from the example's table; it matches the vector Leshan's decoder
// tests use for the same example (checked by reading them, not copied). The multiple-instance examples (Access
// Control, Server, the object links of objects 65/66) come from the same TS section, the frame variants (16-bit ids,
// 8-, 16- and 24-bit lengths) from Wakaama's TLV tests' shapes and our own.
import { describe, expect, it } from 'vitest'
import {
  createObjectRegistry, decodeContent, defineResource as r, encodeContent, DEFAULT_OBJECTS, parsePath, readTlv, writeFrame,
  type LwM2mEntry, type LwM2mPath, type ObjectModel
} from '../../../protocols/lwm2m/index.js'

const TLV = 11542
const p = (text: string): LwM2mPath => { const x = parsePath(text); if (!x.ok) throw new Error(text); return x.path }
const ascii = (s: string): number[] => [...Buffer.from(s, 'ascii')]

function decoded (bytes: Uint8Array, path: string, registry = undefined as ReturnType<typeof createObjectRegistry> | undefined): LwM2mEntry[] {
  const d = decodeContent(TLV, bytes, p(path), registry === undefined ? {} : { registry })
  if (!d.ok) throw new Error(d.reason)
  return d.values
}

const byPath = (values: LwM2mEntry[]): Record<string, unknown> =>
  Object.fromEntries(values.map((v) => ['/' + [v.path.objectId, v.path.instanceId, v.path.resourceId, v.path.resourceInstanceId].filter((n) => n !== undefined).join('/'), v.value]))

// The resources of /3/0 in the TS example, one TLV each: type byte, id, [length], value.
const DEVICE_RESOURCES = [
  0xC8, 0x00, 0x14, ...ascii('Open Mobile Alliance'), //          0 Manufacturer: 11 value, 8-bit length 20
  0xC8, 0x01, 0x16, ...ascii('Lightweight M2M Client'), //        1 Model Number, 22 bytes
  0xC8, 0x02, 0x09, ...ascii('345000123'), //                     2 Serial Number
  0xC3, 0x03, ...ascii('1.0'), //                                 3 Firmware Version: length 3 in the type byte
  0x86, 0x06, //                                                  6 Available Power Sources: multiple, 6 bytes
  0x41, 0x00, 0x01, //                                              [0] = 1 Internal Battery
  0x41, 0x01, 0x05, //                                              [1] = 5 USB
  0x88, 0x07, 0x08, //                                            7 Power Source Voltage: multiple, 8-bit length 8
  0x42, 0x00, 0x0E, 0xD8, //                                        [0] = 3800
  0x42, 0x01, 0x13, 0x88, //                                        [1] = 5000
  0x87, 0x08, //                                                  8 Power Source Current: multiple, 7 bytes
  0x41, 0x00, 0x7D, //                                              [0] = 125
  0x42, 0x01, 0x03, 0x84, //                                        [1] = 900
  0xC1, 0x09, 0x64, //                                            9 Battery Level = 100
  0xC1, 0x0A, 0x0F, //                                           10 Memory Free = 15
  0x83, 0x0B, 0x41, 0x00, 0x00, //                               11 Error Code: [0] = 0
  0xC4, 0x0D, 0x51, 0x82, 0x42, 0x8F, //                         13 Current Time = 1367491215
  0xC6, 0x0E, ...ascii('+02:00'), //                             14 UTC Offset
  0xC1, 0x10, 0x55 //                                            16 Supported Binding and Modes = "U"
]

const DEVICE_VALUES = {
  '/3/0/0': 'Open Mobile Alliance',
  '/3/0/1': 'Lightweight M2M Client',
  '/3/0/2': '345000123',
  '/3/0/3': '1.0',
  '/3/0/6/0': 1,
  '/3/0/6/1': 5,
  '/3/0/7/0': 3800,
  '/3/0/7/1': 5000,
  '/3/0/8/0': 125,
  '/3/0/8/1': 900,
  '/3/0/9': 100,
  '/3/0/10': 15,
  '/3/0/11/0': 0,
  '/3/0/13': new Date(1367491215_000),
  '/3/0/14': '+02:00',
  '/3/0/16': 'U'
}

describe('the Device object instance of the TS example', () => {
  const bytes = Buffer.from(DEVICE_RESOURCES)

  it('is the vector Leshan tests the same example with', () => {
    expect(bytes.length).toBe(0x79) // the length of the object instance TLV around it in the wrapped form
    expect(bytes.subarray(0, 12).toString('hex')).toBe('c800144f70656e204d6f6269')
    expect(bytes.subarray(-17).toString('hex')).toBe('c40d5182428fc60e2b30323a3030c11055')
  })

  it('decodes, read at /3/0, to the values the example lists, typed by the Device model', () => {
    const values = decoded(bytes, '/3/0')
    expect(byPath(values)).toEqual(DEVICE_VALUES)
    expect(values.find((v) => v.path.resourceId === 13)?.type).toBe('Time')
    expect(values.find((v) => v.path.resourceId === 0)?.type).toBe('String')
    expect(values.find((v) => v.path.resourceId === 9)?.type).toBe('Integer')
  })

  it('decodes the same resources wrapped in object instance 0 (08 00 79 …), at /3/0 and at /3', () => {
    const wrapped = Buffer.from([0x08, 0x00, 0x79, ...DEVICE_RESOURCES])
    expect(byPath(decoded(wrapped, '/3/0'))).toEqual(DEVICE_VALUES)
    expect(byPath(decoded(wrapped, '/3'))).toEqual(DEVICE_VALUES)
  })

  it('encodes back to the same bytes: shortest integers, lengths in the type byte below 8', () => {
    const enc = encodeContent(TLV, decoded(bytes, '/3/0'), { basePath: p('/3/0') })
    expect(enc.ok && enc.payload.toString('hex')).toBe(bytes.toString('hex'))
    const asObject = encodeContent(TLV, decoded(bytes, '/3/0'), { basePath: p('/3') })
    expect(asObject.ok && asObject.payload.toString('hex')).toBe('080079' + bytes.toString('hex'))
  })
})

// Object 2 (Access Control) and the test objects 65/66 of the TS's object link example: not in our default models.
const extra: ObjectModel[] = [
  { id: 2, name: 'Access Control', version: '1.0', multiple: true, mandatory: false, resources: [r(0, 'Object ID', 'Integer', 'R', 'single', 'mandatory'), r(1, 'Object Instance ID', 'Integer', 'R', 'single', 'mandatory'), r(2, 'ACL', 'Integer', 'RW', 'multiple', 'optional'), r(3, 'Access Control Owner', 'Integer', 'RW', 'single', 'mandatory')] },
  { id: 65, name: 'test 65', version: '1.0', multiple: true, mandatory: false, resources: [r(0, 'res0', 'Objlnk', 'R', 'multiple', 'optional'), r(1, 'res1', 'String', 'R', 'single', 'optional'), r(2, 'res2', 'Integer', 'R', 'single', 'optional')] },
  { id: 66, name: 'test 66', version: '1.0', multiple: true, mandatory: false, resources: [r(0, 'res0', 'String', 'R', 'single', 'optional'), r(1, 'res1', 'String', 'R', 'single', 'optional'), r(2, 'res2', 'Objlnk', 'R', 'single', 'optional')] }
]
const registry = createObjectRegistry([...DEFAULT_OBJECTS, ...extra])

describe('the multiple-instance examples of the TS', () => {
  it('Access Control, two object instances with a multiple resource (ACL) each', () => {
    const bytes = Buffer.from([
      0x08, 0x00, 0x0E, //                         instance 0, 14 bytes
      0xC1, 0x00, 0x01, 0xC1, 0x01, 0x00, //         Object ID 1, Object Instance ID 0
      0x83, 0x02, 0x41, 0x7F, 0x07, //               ACL [127] = 7
      0xC1, 0x03, 0x7F, //                           owner 127
      0x08, 0x02, 0x12, //                         instance 2, 18 bytes
      0xC1, 0x00, 0x03, 0xC1, 0x01, 0x00, //         Object ID 3, Object Instance ID 0
      0x87, 0x02, 0x41, 0x7F, 0x07, 0x61, 0x01, 0x36, 0x01, // ACL [127] = 7, [310] = 1 (16-bit resource instance id)
      0xC1, 0x03, 0x7F
    ])
    expect(byPath(decoded(bytes, '/2', registry))).toEqual({
      '/2/0/0': 1, '/2/0/1': 0, '/2/0/2/127': 7, '/2/0/3': 127, '/2/2/0': 3, '/2/2/1': 0, '/2/2/2/127': 7, '/2/2/2/310': 1, '/2/2/3': 127
    })
    const enc = encodeContent(TLV, decoded(bytes, '/2', registry), { basePath: p('/2'), registry })
    expect(enc.ok && enc.payload.equals(bytes)).toBe(true)
  })

  it('Server, one object instance: lifetime on 4 bytes, a boolean, the binding', () => {
    const bytes = Buffer.from([0x08, 0x00, 0x0F, 0xC1, 0x00, 0x01, 0xC4, 0x01, 0x00, 0x01, 0x51, 0x80, 0xC1, 0x06, 0x01, 0xC1, 0x07, 0x55])
    expect(byPath(decoded(bytes, '/1'))).toEqual({ '/1/0/0': 1, '/1/0/1': 86400, '/1/0/6': true, '/1/0/7': 'U' })
  })

  it('object links: a multiple Objlnk resource, and one set to the null link 65535:65535', () => {
    const obj65 = Buffer.from([0x88, 0x00, 0x0C, 0x44, 0x00, 0x00, 0x42, 0x00, 0x00, 0x44, 0x01, 0x00, 0x42, 0x00, 0x01,
      0xC8, 0x01, 0x0D, ...ascii('8613800755500'), 0xC4, 0x02, 0x12, 0x34, 0x56, 0x78])
    expect(byPath(decoded(obj65, '/65/0', registry))).toEqual({
      '/65/0/0/0': { objectId: 66, instanceId: 0 }, '/65/0/0/1': { objectId: 66, instanceId: 1 }, '/65/0/1': '8613800755500', '/65/0/2': 305419896
    })
    const obj66 = Buffer.from([0x08, 0x01, 0x26, 0xC8, 0x00, 0x0B, ...ascii('myService 2'), 0xC8, 0x01, 0x0F, ...ascii('Internet.15.235'), 0xC4, 0x02, 0xFF, 0xFF, 0xFF, 0xFF])
    expect(byPath(decoded(obj66, '/66', registry))['/66/1/2']).toEqual({ objectId: 65535, instanceId: 65535 })
  })
})

describe('frame variants', () => {
  it('reads 16-bit identifiers with 8-bit lengths, and 16- and 24-bit lengths', () => {
    // Wakaama's shapes: instance 0x0203 (16-bit id) holding resources 55 and 66.
    const inst = Buffer.from([0x28, 0x02, 0x03, 17, 0xC3, 55, 1, 2, 3, 0xC8, 66, 9, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    const read = readTlv(inst)
    expect(read.ok && read.frames[0]).toMatchObject({ kind: 0, id: 0x203, children: [{ kind: 3, id: 55 }, { kind: 3, id: 66 }] })
    const big = Buffer.alloc(0x190, 7)
    const multi = Buffer.concat([Buffer.from([0x90, 33, 0x01, 0x94]), Buffer.from([0x50, 0x00, 0x01, 0x90]), big])
    const m = readTlv(multi)
    expect(m.ok && m.frames[0]?.children?.[0]?.value.length).toBe(0x190)
    const huge = writeFrame(3, 1000, Buffer.alloc(70_000, 1))
    expect(huge.subarray(0, 6).toString('hex')).toBe('f803e8011170')
    const h = readTlv(huge)
    expect(h.ok && h.frames[0]).toMatchObject({ kind: 3, id: 1000 })
  })

  it('reads a resource read at /3/0/7 as a multiple resource or as bare resource instances', () => {
    const multiple = Buffer.from([0x88, 0x07, 0x08, 0x42, 0x00, 0x0E, 0xD8, 0x42, 0x01, 0x13, 0x88])
    expect(byPath(decoded(multiple, '/3/0/7'))).toEqual({ '/3/0/7/0': 3800, '/3/0/7/1': 5000 })
    expect(byPath(decoded(multiple.subarray(3), '/3/0/7'))).toEqual({ '/3/0/7/0': 3800, '/3/0/7/1': 5000 })
    expect(byPath(decoded(Buffer.from([0x42, 0x01, 0x13, 0x88]), '/3/0/7/1'))).toEqual({ '/3/0/7/1': 5000 })
  })

  it('reads a single resource, integers of 1, 2, 4 and 8 bytes, floats of 4 and 8', () => {
    expect(decoded(Buffer.from([0xC1, 0x09, 0xFF]), '/3/0/9')[0]?.value).toBe(-1)
    expect(decoded(Buffer.from([0xC8, 0x09, 8, 0x80, 0, 0, 0, 0, 0, 0, 0]), '/3/0/9')[0]?.value).toBe(-(2n ** 63n))
    expect(decoded(Buffer.from([0xC4, 0x00, 0x42, 0x28, 0, 0]), '/6/0/0')[0]?.value).toBe(42)
    expect(decoded(Buffer.from([0xC8, 0x00, 8, 0x40, 0x45, 0x01, 0x47, 0xAE, 0x14, 0x7A, 0xE1]), '/6/0/0')[0]?.value).toBe(42.01)
  })

  it('reads a resource the models do not know as Opaque bytes', () => {
    const [v] = decoded(Buffer.from([0xC3, 0x05, 1, 2, 3]), '/3303/0/5')
    expect(v).toEqual({ path: p('/3303/0/5'), value: Buffer.from([1, 2, 3]), type: 'Opaque' })
  })

  it('an empty payload is no value', () => {
    expect(decoded(Buffer.alloc(0), '/3/0/11')).toEqual([])
  })
})

describe('refusals', () => {
  const refused = (bytes: number[], path: string): string => {
    const d = decodeContent(TLV, Buffer.from(bytes), p(path))
    return d.ok ? 'accepted' : d.reason
  }

  it('names what is wrong', () => {
    expect(refused([0xC3, 55, 1, 2], '/3/0/55')).toBe('lwm2m.tlv.truncated')
    expect(refused([0xC8], '/3/0')).toBe('lwm2m.tlv.truncated')
    expect(refused([0x08, 0x00, 0x03, 0x41, 0x00, 0x01], '/3')).toBe('lwm2m.tlv.structure') // a resource instance in an instance
    expect(refused([0xC1, 0x09, 1, 0xC1, 0x09, 2], '/3/0')).toBe('lwm2m.tlv.duplicate')
    expect(refused([0xC3, 0x09, 1, 2, 3], '/3/0/9')).toBe('lwm2m.tlv.integer.length')
    expect(refused([0xC2, 0x00, 1, 2], '/6/0/0')).toBe('lwm2m.tlv.float.length')
    expect(refused([0xC1, 0x06, 2], '/1/0/6')).toBe('lwm2m.tlv.boolean.invalid')
    expect(refused([0xC3, 0x0A, 0, 1, 0], '/1/0/10')).toBe('lwm2m.tlv.objlnk.length')
    expect(refused([0xC8, 0x0D, 8, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], '/3/0/13')).toBe('lwm2m.value.time.range')
    expect(refused([0xC1, 0x09, 1], '/3/0/10')).toBe('lwm2m.tlv.path.mismatch')
    expect(refused([0x08, 0x01, 0x03, 0xC1, 0x09, 1], '/3/0')).toBe('lwm2m.tlv.path.mismatch')
    // Leshan's broken vector: object instances whose lengths run past the payload.
    expect(refused([0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0x00], '/3')).not.toBe('accepted')
    expect(decodeContent(TLV, Buffer.alloc(0), null)).toEqual({ ok: false, reason: 'lwm2m.tlv.path.required' })
  })

  it('bounds the frames of a payload and the value of a frame', () => {
    const many = Buffer.concat(Array.from({ length: 10_001 }, (_, id) => Buffer.from([0xE1, id >> 8, id & 0xff, 0])))
    expect(decodeContent(TLV, many, p('/3303/0'))).toEqual({ ok: false, reason: 'lwm2m.tlv.too.many' })
    expect(encodeContent(TLV, [{ path: p('/5/0/0'), value: Buffer.alloc(0x1000000) }])).toEqual({ ok: false, reason: 'lwm2m.encode.too.large' })
    const values = Array.from({ length: 10_001 }, (_, i) => ({ path: p(`/3/0/7/${i}`), value: i }))
    expect(encodeContent(TLV, values)).toEqual({ ok: false, reason: 'lwm2m.encode.too.many' })
  })
})
