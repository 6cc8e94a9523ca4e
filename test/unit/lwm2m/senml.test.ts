// SenML JSON (110) and SenML CBOR (112) as LwM2M 1.1 uses them (Core TS §7.4.4, §7.4.5; RFC 8428), and the LwM2M
// JSON of 1.0 (11543). Vectors: the Device object instance of the TS example in SenML JSON (the same values as the
// TLV example); RFC 8428 §5.1.2 (multiple datapoints), written here and, for CBOR, encoded by hand with the integer
// labels of RFC 8428 Table 6; the two SenML CBOR vectors Leshan's serializer tests use (an opaque value, a half
// float), rebuilt from their CBOR diagnostic notation; the LwM2M 1.0 JSON examples (with and without base name,
// timestamped values).
import { describe, expect, it } from 'vitest'
import {
  decodeContent, encodeContent, parsePath, readSenmlCbor, readSenmlJson, type LwM2mEntry, type LwM2mPath
} from '../../../protocols/lwm2m/index.js'

const SENML_JSON = 110
const SENML_CBOR = 112
const JSON_LWM2M = 11543
const p = (text: string): LwM2mPath => { const x = parsePath(text); if (!x.ok) throw new Error(text); return x.path }
const hex = (h: string): Buffer => Buffer.from(h.replace(/\s+/g, ''), 'hex')

function values (format: number, payload: string | Buffer, path: string | null, now?: number): LwM2mEntry[] {
  const d = decodeContent(format, typeof payload === 'string' ? Buffer.from(payload) : payload, path === null ? null : p(path), now === undefined ? {} : { now })
  if (!d.ok) throw new Error(d.reason)
  return d.values
}
const reason = (format: number, payload: string | Buffer, path: string | null): string => {
  const d = decodeContent(format, typeof payload === 'string' ? Buffer.from(payload) : payload, path === null ? null : p(path))
  return d.ok ? 'accepted' : d.reason
}
const byPath = (vs: LwM2mEntry[]): Record<string, unknown> => Object.fromEntries(vs.map((v) => [
  '/' + [v.path.objectId, v.path.instanceId, v.path.resourceId, v.path.resourceInstanceId].filter((n) => n !== undefined).join('/'), v.value
]))

const DEVICE_SENML = JSON.stringify([
  { bn: '/3/0/', n: '0', vs: 'Open Mobile Alliance' },
  { n: '1', vs: 'Lightweight M2M Client' },
  { n: '2', vs: '345000123' },
  { n: '3', vs: '1.0' },
  { n: '6/0', v: 1 },
  { n: '6/1', v: 5 },
  { n: '7/0', v: 3800 },
  { n: '7/1', v: 5000 },
  { n: '8/0', v: 125 },
  { n: '8/1', v: 900 },
  { n: '9', v: 100 },
  { n: '10', v: 15 },
  { n: '11/0', v: 0 },
  { n: '13', v: 1367491215 },
  { n: '14', vs: '+02:00' },
  { n: '16', vs: 'U' }
])

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

describe('SenML JSON', () => {
  it('the Device object instance: names relative to bn, resource instances as `6/0`, Time from v', () => {
    const vs = values(SENML_JSON, DEVICE_SENML, '/3/0')
    expect(byPath(vs)).toEqual(DEVICE_VALUES)
    expect(vs.find((v) => v.path.resourceId === 13)?.type).toBe('Time')
  })

  it('encodes the Device instance back to the same pack', () => {
    const enc = encodeContent(SENML_JSON, values(SENML_JSON, DEVICE_SENML, '/3/0'), { basePath: p('/3/0') })
    expect(enc.ok && enc.payload.toString()).toBe(DEVICE_SENML)
  })

  it('a single resource: the whole path in bn, or in n', () => {
    expect(values(SENML_JSON, '[{"bn":"/3/0/0","vs":"Open Mobile Alliance"}]', '/3/0/0')).toEqual([
      { path: p('/3/0/0'), value: 'Open Mobile Alliance', type: 'String' }
    ])
    expect(values(SENML_JSON, '[{"n":"/6/0/3","v":20.0}]', '/6/0/3')[0]?.value).toBe(20)
    expect(values(SENML_JSON, '[{"bn":"/3/0/13","v":1.638435E9}]', '/3/0/13')[0]?.value).toEqual(new Date(1638435000_000))
  })

  it('booleans, object links (vlo), opaque (vd in base64url, padding or not) and unknown resources', () => {
    const pack = '[{"bn":"/1/0/","n":"6","vb":true},{"n":"10","vlo":"11:0"},{"bn":"/5/0/0","vd":"aGkgCg"},' +
      '{"bn":"/3303/0/","n":"5700","v":22.5},{"n":"5701","vs":"Cel"},{"n":"5750","vd":"aGkgCg=="}]'
    expect(values(SENML_JSON, pack, null)).toEqual([
      { path: p('/1/0/6'), value: true, type: 'Boolean' },
      { path: p('/1/0/10'), value: { objectId: 11, instanceId: 0 }, type: 'Objlnk' },
      { path: p('/5/0/0'), value: Buffer.from('hi \n'), type: 'Opaque' },
      { path: p('/3303/0/5700'), value: 22.5, type: 'Float' },
      { path: p('/3303/0/5701'), value: 'Cel', type: 'String' },
      { path: p('/3303/0/5750'), value: Buffer.from('hi \n'), type: 'Opaque' }
    ])
  })

  it('times: bt + t, absolute from 2^28 on, relative to now below (RFC 8428 §4.5.3); a path may repeat', () => {
    const pack = '[{"bn":"/3303/0/5700","bt":1700000000,"v":22.4,"t":-5},{"v":22.9,"t":-30},{"bn":"/6/0/0","t":-10,"bt":0,"v":45.1}]'
    expect(values(SENML_JSON, pack, null, 1800000000).map((v) => v.timestamp)).toEqual([1699999995_000, 1699999970_000, 1799999990_000])
  })

  it('an alternate root path is stripped from names', () => {
    const d = decodeContent(SENML_JSON, Buffer.from('[{"bn":"/lwm2m/3/0/","n":"9","v":80}]'), p('/3/0'), { rootPath: '/lwm2m' })
    expect(d.ok && d.values).toEqual([{ path: p('/3/0/9'), value: 80, type: 'Integer' }])
  })

  it('RFC 8428 §5.1.2, multiple datapoints: base name and names resolve; units are read past', () => {
    const pack = '[{"bn":"urn:dev:ow:10e2073a01080063:","n":"voltage","u":"V","v":120.1},{"n":"current","u":"A","v":1.2}]'
    const read = readSenmlJson(Buffer.from(pack))
    expect(read.ok && read.records).toEqual([{ bn: 'urn:dev:ow:10e2073a01080063:', n: 'voltage', v: 120.1 }, { n: 'current', v: 1.2 }])
    // Not LwM2M paths: refused when asked for LwM2M values.
    expect(reason(SENML_JSON, pack, null)).toBe('lwm2m.senml.path.invalid')
  })

  it('refuses what is not a LwM2M SenML pack', () => {
    expect(reason(SENML_JSON, '{"bn":"/3/0/9","v":1}', '/3/0/9')).toBe('lwm2m.senml.invalid')
    expect(reason(SENML_JSON, '[{"bn":"/3/0/9","v":"1"}]', '/3/0/9')).toBe('lwm2m.senml.invalid')
    expect(reason(SENML_JSON, '[{"bn":"/3/0/9","v":1,"vs":"1"}]', '/3/0/9')).toBe('lwm2m.senml.invalid')
    expect(reason(SENML_JSON, '[{"bn":"/3/0/9"}]', '/3/0/9')).toBe('lwm2m.senml.no.value')
    expect(reason(SENML_JSON, '[{"bn":"/3/0/9","v":1,"x_":2}]', '/3/0/9')).toBe('lwm2m.senml.must.understand')
    expect(reason(SENML_JSON, '[{"bn":"/3/0/9","v":1}]', '/3/0/10')).toBe('lwm2m.senml.path.outside')
    expect(reason(SENML_JSON, '[{"bn":"/3/0/9","bver":11,"v":1}]', '/3/0/9')).toBe('lwm2m.senml.version.unsupported')
    expect(reason(SENML_JSON, '[{"bn":"/3/0/9","bver":10,"v":1}]', '/3/0/9')).toBe('accepted')
    expect(reason(SENML_JSON, '[{"bn":"/3/0","v":1}]', '/3')).toBe('lwm2m.senml.path.invalid')
    expect(reason(SENML_JSON, '[{"bn":"/3/0/9","v":1.5}]', '/3/0/9')).toBe('lwm2m.senml.type.mismatch')
    expect(reason(SENML_JSON, '[{"bn":"/3/0/9","vs":"1"}]', '/3/0/9')).toBe('lwm2m.senml.type.mismatch')
    expect(reason(SENML_JSON, '[{"bn":"/5/0/0","vd":"a*b"}]', '/5/0/0')).toBe('lwm2m.senml.invalid')
    expect(reason(SENML_JSON, '[{"bn":"/3/0/4","v":1}]', '/3/0/4')).toBe('lwm2m.senml.type.mismatch')
    expect(reason(SENML_JSON, '[' + '[1],'.repeat(3) + '[1]]', null)).toBe('lwm2m.senml.invalid')
    expect(reason(SENML_JSON, Buffer.from([0x5b, 0xff, 0x5d]), null)).toBe('lwm2m.senml.invalid')
  })

  it('bounds the records of a pack', () => {
    expect(reason(SENML_JSON, JSON.stringify(Array.from({ length: 10_001 }, () => ({}))), null)).toBe('lwm2m.senml.too.many')
    expect(reason(JSON_LWM2M, JSON.stringify({ e: Array.from({ length: 10_001 }, () => ({})) }), null)).toBe('lwm2m.json.too.many')
  })

  it('an empty payload or pack is no value (an empty multiple resource)', () => {
    expect(values(SENML_JSON, '', '/3/0/6')).toEqual([])
    expect(values(SENML_JSON, '[]', '/3/0/6')).toEqual([])
  })
})

describe('SenML CBOR', () => {
  it('the opaque resource of Leshan\'s vector: [{-2: "/0/0/3", 8: h\'ABCDEF\'}]', () => {
    const bytes = hex('81 a2 21 66 2f302f302f33 08 43 abcdef')
    expect(values(SENML_CBOR, bytes, '/0/0/3')).toEqual([{ path: p('/0/0/3'), value: hex('abcdef'), type: 'Opaque' }])
    const enc = encodeContent(SENML_CBOR, [{ path: p('/0/0/3'), value: hex('abcdef') }])
    expect(enc.ok && enc.payload.toString('hex')).toBe(bytes.toString('hex'))
  })

  it('a half float: [{2: 300.0, -2: "/3442/0/130"}], labels in any order', () => {
    const bytes = hex('81 a2 02 f9 5cb0 21 6b 2f333434322f302f313330')
    expect(values(SENML_CBOR, bytes, '/3442/0/130')).toEqual([{ path: p('/3442/0/130'), value: 300, type: 'Integer' }])
  })

  it('RFC 8428 §5.1.2 in CBOR, integer labels: bn -2 (0x21), n 0, u 1, v 2', () => {
    const bytes = hex('82' +
      'a4 21 78 1c' + Buffer.from('urn:dev:ow:10e2073a01080063:').toString('hex') +
      '00 67' + Buffer.from('voltage').toString('hex') + '01 61 56 02 fb 405e066666666666' +
      'a3 00 67' + Buffer.from('current').toString('hex') + '01 61 41 02 fb 3ff3333333333333')
    const read = readSenmlCbor(bytes)
    expect(read.ok && read.records).toEqual([{ bn: 'urn:dev:ow:10e2073a01080063:', n: 'voltage', v: 120.1 }, { n: 'current', v: 1.2 }])
  })

  it('the Device instance in CBOR decodes to the same values as in JSON, and encodes with the labels of Table 6', () => {
    const fromJson = values(SENML_JSON, DEVICE_SENML, '/3/0')
    const enc = encodeContent(SENML_CBOR, fromJson, { basePath: p('/3/0') })
    expect(enc.ok).toBe(true)
    if (!enc.ok) return
    expect(enc.payload.subarray(0, 12).toString('hex')).toBe('90a32165' + Buffer.from('/3/0/').toString('hex') + '006130')
    expect(values(SENML_CBOR, enc.payload, '/3/0')).toEqual(fromJson)
  })

  it('vlo under its text label, bt (-3) and t (6), booleans (4), strings (3)', () => {
    const enc = encodeContent(SENML_CBOR, [
      { path: p('/1/0/10'), value: { objectId: 11, instanceId: 1 }, timestamp: 1700000000_000 },
      { path: p('/1/0/6'), value: false }
    ], { basePath: p('/1/0') })
    expect(enc.ok && enc.payload.toString('hex')).toBe('82a4' + '2165' + Buffer.from('/1/0/').toString('hex') + '00623130' + '061a6553f100' + '63766c6f64' + Buffer.from('11:1').toString('hex') + 'a2' + '006136' + '04f4')
  })

  it('refuses what is not a SenML CBOR pack', () => {
    expect(reason(SENML_CBOR, hex('a0'), null)).toBe('lwm2m.senml.invalid')
    expect(reason(SENML_CBOR, hex('81 a2 21 66 2f302f302f33 08 43 abcd'), null)).toBe('lwm2m.senml.invalid') // truncated
    expect(reason(SENML_CBOR, hex('81 a1 21 66 2f302f302f33 00'), null)).toBe('lwm2m.senml.invalid') // trailing byte
    expect(reason(SENML_CBOR, hex('81 a2 21 66 2f302f302f33 08 81 00'), null)).toBe('lwm2m.senml.invalid') // vd an array
    expect(reason(SENML_CBOR, hex('81 a3 21 66 2f302f302f33 02 01 21 61 78'), null)).toBe('lwm2m.senml.invalid') // bn twice
    expect(reason(SENML_CBOR, hex('81 a2 21 66 2f302f392f39 62 785f 01'), null)).toBe('lwm2m.senml.must.understand')
    expect(reason(SENML_CBOR, hex('9bffffffffffffffff'), null)).toBe('lwm2m.senml.invalid')
    expect(reason(SENML_CBOR, hex('81 a3 20 0b 21 66 2f332f302f39 02 01'), null)).toBe('lwm2m.senml.version.unsupported')
  })
})

describe('LwM2M JSON (1.0)', () => {
  const device = (bn: string | undefined, prefix: string): string => JSON.stringify({
    ...(bn === undefined ? {} : { bn }),
    e: [
      { n: `${prefix}0`, sv: 'Open Mobile Alliance' },
      { n: `${prefix}6/0`, v: 1 },
      { n: `${prefix}13`, v: 1367491215 },
      { n: `${prefix}16`, sv: 'U' }
    ]
  })
  const expected = { '/3/0/0': 'Open Mobile Alliance', '/3/0/6/0': 1, '/3/0/13': new Date(1367491215_000), '/3/0/16': 'U' }

  it('reads the Device instance with bn "/3/0/", bn "/", without bn, and with bn "3/0/"', () => {
    expect(byPath(values(JSON_LWM2M, device('/3/0/', ''), '/3/0'))).toEqual(expected)
    expect(byPath(values(JSON_LWM2M, device('/', '3/0/'), '/3/0'))).toEqual(expected)
    expect(byPath(values(JSON_LWM2M, device(undefined, '/3/0/'), '/3/0'))).toEqual(expected)
    expect(byPath(values(JSON_LWM2M, device('3/0/', ''), '/3/0'))).toEqual(expected)
  })

  it('timestamped values: bt + t is absolute when bt is given', () => {
    const doc = '{"bn":"/3303/0/5700","e":[{"v":22.9,"t":-30},{"v":22.4,"t":-5}],"bt":25462634}'
    expect(values(JSON_LWM2M, doc, '/3303/0/5700').map((v) => [v.value, v.timestamp])).toEqual([[22.9, 25462604_000], [22.4, 25462629_000]])
  })

  it('booleans in bv, object links in ov, opaque as base64 in sv; writes the same shape', () => {
    const doc = '{"bn":"/1/0/","e":[{"n":"6","bv":true},{"n":"10","ov":"11:0"}]}'
    const vs = values(JSON_LWM2M, doc, '/1/0')
    expect(byPath(vs)).toEqual({ '/1/0/6': true, '/1/0/10': { objectId: 11, instanceId: 0 } })
    const enc = encodeContent(JSON_LWM2M, vs, { basePath: p('/1/0') })
    expect(enc.ok && enc.payload.toString()).toBe(doc)
    const opaque = encodeContent(JSON_LWM2M, [{ path: p('/5/0/0'), value: Buffer.from('hi') }])
    expect(opaque.ok && opaque.payload.toString()).toBe('{"bn":"/5/0/0","e":[{"sv":"aGk="}]}')
    expect(values(JSON_LWM2M, '{"bn":"/5/0/0","e":[{"sv":"aGk="}]}', '/5/0/0')[0]?.value).toEqual(Buffer.from('hi'))
  })

  it('refuses what is not LwM2M JSON', () => {
    expect(reason(JSON_LWM2M, '[]', null)).toBe('lwm2m.json.invalid')
    expect(reason(JSON_LWM2M, '{"bn":3,"e":[]}', null)).toBe('lwm2m.json.invalid')
    expect(reason(JSON_LWM2M, '{"e":[{"n":"/3/0/9","v":true}]}', null)).toBe('lwm2m.json.invalid')
  })
})
