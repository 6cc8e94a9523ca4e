// protocols/bysant: the worked byte examples of docs/protocols/m3da.md, and each form of docs/protocols/m3da.md.
import { describe, expect, it } from 'vitest'
import {
  BysantReader, bysantObject, Ctx, decodeAll, encode, encodeClassDef, typedList, typedMap, unsizedList, unsizedMap,
  type BysantValue, type ClassDef, type Encodable
} from '../../../protocols/bysant/index.js'

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex')
const text = (s: string): string => Buffer.from(s).toString('hex')

/** Encodes `value` to exactly `bytes`, and decodes `bytes` back to `decoded`. */
function golden (value: Encodable, bytes: string, ctx: Ctx = Ctx.Global, decoded: BysantValue = value as BysantValue, classes: ClassDef[] = []): void {
  expect(encode(value, ctx, classes).toString('hex')).toBe(hex(bytes).toString('hex'))
  expect(decodeAll(hex(bytes), ctx, classes)).toEqual({ ok: true, values: [decoded] })
}

describe('integers (§1.9 table)', () => {
  const rows: Array<[number, Ctx, string]> = [
    [0, Ctx.Global, '9F'], [0, Ctx.Numbers, '62'], [0, Ctx.UIS, '3B'],
    [1, Ctx.Global, 'A0'], [1, Ctx.Numbers, '63'], [1, Ctx.UIS, '3C'],
    [-1, Ctx.Global, '9E'], [-1, Ctx.Numbers, '61'],
    [64, Ctx.Global, 'DF'], [65, Ctx.Global, 'E0 00'],
    [-31, Ctx.Global, '80'], [-32, Ctx.Global, 'E8 00'],
    [97, Ctx.Numbers, 'C3'], [98, Ctx.Numbers, 'C4 00'],
    [139, Ctx.UIS, 'C6'], [140, Ctx.UIS, 'C7 00'],
    [200, Ctx.Global, 'E0 87'],
    [2112, Ctx.Global, 'E7 FF'], [2113, Ctx.Global, 'F0 00 00'],
    [4194, Ctx.Numbers, 'E4 00 00'],
    [8331, Ctx.UIS, 'E6 FF'], [8332, Ctx.UIS, 'E7 00 00'],
    [264257, Ctx.Global, 'F8 00 00 00'],
    [528482, Ctx.Numbers, 'F4 00 00 00'],
    [33818689, Ctx.Global, 'FC 02 04 08 41'],
    [450000000, Ctx.Global, 'FC 1A D2 74 80'],
    [-50000, Ctx.Global, 'F4 BB 30']
  ]
  for (const [value, ctx, bytes] of rows) {
    it(`${value} in context ${ctx} is ${bytes}`, () => golden(value, bytes, ctx))
  }

  it('writes each range edge in its own form and reads it back (§1.2, §1.3, §1.4)', () => {
    const edges: Array<[number, Ctx, string]> = [
      [-2079, Ctx.Global, 'EF FF'], [-2080, Ctx.Global, 'F4 00 00'], [264256, Ctx.Global, 'F3 FF FF'],
      [-264223, Ctx.Global, 'F7 FF FF'], [-264224, Ctx.Global, 'FA 00 00 00'],
      [33818688, Ctx.Global, 'F9 FF FF FF'], [-33818655, Ctx.Global, 'FB FF FF FF'], [-33818656, Ctx.Global, 'FC FD FB F7 E0'],
      [-97, Ctx.Numbers, '01'], [-98, Ctx.Numbers, 'D4 00'], [4193, Ctx.Numbers, 'D3 FF'], [-4193, Ctx.Numbers, 'E3 FF'],
      [528481, Ctx.Numbers, 'EB FF FF'], [-4194, Ctx.Numbers, 'EC 00 00'], [-528482, Ctx.Numbers, 'F8 00 00 00'],
      [67637345, Ctx.Numbers, 'F7 FF FF FF'], [67637346, Ctx.Numbers, 'FC 04 08 10 62'],
      [1056907, Ctx.UIS, 'F6 FF FF'], [1056908, Ctx.UIS, 'F7 00 00 00'], [135274635, Ctx.UIS, 'FE FF FF FF'],
      [135274636, Ctx.UIS, 'FF 08 10 20 8C'], [0xFFFFFFFF, Ctx.UIS, 'FF FF FF FF FF']
    ]
    for (const [value, ctx, bytes] of edges) golden(value, bytes, ctx)
  })

  it('writes int64 beyond int32 and reads it as a number when safe, as a bigint beyond (§1.8)', () => {
    golden(2 ** 40, 'FD 00 00 01 00 00 00 00 00')
    golden(2n ** 62n, 'FD 40 00 00 00 00 00 00 00')
    golden(-(2n ** 63n), 'FD 80 00 00 00 00 00 00 00', Ctx.Numbers)
    golden(5n, 'A4', Ctx.Global, 5)
  })
})

describe('other scalars (§1.9)', () => {
  it('23.5 fits a float32 and π does not (§1.7)', () => {
    golden(23.5, 'FE 41 BC 00 00')
    golden(Math.PI, 'FF 40 09 21 FB 54 44 2D 18')
    golden(23.5, 'FE 41 BC 00 00', Ctx.Numbers)
  })

  it('an integral double is written as an integer, −0 as 0 (§1.7)', () => {
    golden(42.0, 'C9')
    golden(-0, '9F', Ctx.Global, 0)
  })

  it('"status" in Global and in UIS', () => {
    golden('status', '09' + text('status'), Ctx.Global, Buffer.from('status'))
    golden('status', '07' + text('status'), Ctx.UIS, Buffer.from('status'))
  })

  it('null, true and false', () => {
    golden(null, '00')
    golden(true, '01')
    golden(false, '02')
    golden(null, '00', Ctx.UIS)
    golden(null, '00', Ctx.Numbers)
    golden(null, '00', Ctx.ListMap)
  })
})

describe('strings: every length form (§1.2, §1.3, §1.7)', () => {
  const str = (n: number): Buffer => Buffer.alloc(n, 0x61)
  const forms: Array<[number, Ctx, string]> = [
    [0, Ctx.Global, '03'], [32, Ctx.Global, '23'], [33, Ctx.Global, '24 00'], [1056, Ctx.Global, '27 FF'],
    [1057, Ctx.Global, '28 00 00'], [66592, Ctx.Global, '28 FF FF'],
    [0, Ctx.UIS, '01'], [47, Ctx.UIS, '30'], [48, Ctx.UIS, '31 00'], [2095, Ctx.UIS, '38 FF'],
    [2096, Ctx.UIS, '39 00 00'], [67631, Ctx.UIS, '39 FF FF']
  ]
  for (const [n, ctx, head] of forms) {
    it(`${n} bytes in context ${ctx} start ${head}`, () => {
      const bytes = encode(str(n), ctx)
      expect(bytes.subarray(0, hex(head).length).toString('hex')).toBe(hex(head).toString('hex'))
      expect(bytes.length).toBe(hex(head).length + n)
      expect(decodeAll(bytes, ctx)).toEqual({ ok: true, values: [str(n)] })
    })
  }

  it('beyond the large form, writes chunks of at most 0xFFFF bytes ended by 00 00', () => {
    for (const [ctx, n, op] of [[Ctx.Global, 66593, 0x29], [Ctx.UIS, 67632, 0x3A]] as const) {
      const bytes = encode(str(n), ctx)
      expect(bytes[0]).toBe(op)
      expect(bytes.readUInt16BE(1)).toBe(0xFFFF)
      expect(bytes.readUInt16BE(3 + 0xFFFF)).toBe(n - 0xFFFF)
      expect(bytes.subarray(-2).toString('hex')).toBe('0000')
      expect(bytes.length).toBe(1 + 2 + 0xFFFF + 2 + (n - 0xFFFF) + 2)
      expect(decodeAll(bytes, ctx)).toEqual({ ok: true, values: [str(n)] })
    }
  })

  it('reads chunked strings of any chunk sizes, including short ones', () => {
    golden('abc', '06 616263', Ctx.Global, Buffer.from('abc'))
    expect(decodeAll(hex('29 0001 61 0002 6263 0000'))).toEqual({ ok: true, values: [Buffer.from('abc')] })
    expect(decodeAll(hex('3A 0000'), Ctx.UIS)).toEqual({ ok: true, values: [Buffer.alloc(0)] })
  })
})

describe('containers (§1.9, §1.2, §1.6)', () => {
  const m = (...pairs: Array<[string | number, BysantValue]>): Map<string | number, BysantValue> => new Map(pairs)

  it('[1,2,3] in Global; {key:"value"} in Global and in context 6', () => {
    golden([1, 2, 3], '2D A0 A1 A2')
    golden({ key: 'value' }, '42 04 6B 65 79 08 76 61 6C 75 65', Ctx.Global, m(['key', Buffer.from('value')]))
    golden({ key: 'value' }, '84 04 6B 65 79 08 76 61 6C 75 65', Ctx.ListMap, m(['key', Buffer.from('value')]))
  })

  it('empty lists and maps, typed or not, carry no context byte (§1.7)', () => {
    golden([], '2A')
    golden([], '01', Ctx.ListMap)
    golden(typedList(Ctx.Int32, []), '2A', Ctx.Global, [])
    golden(typedList(Ctx.Int32, []), '01', Ctx.ListMap, [])
    golden(new Map(), '41')
    golden({}, '83', Ctx.ListMap, new Map())
    golden(typedMap(Ctx.UIS, {}), '41', Ctx.Global, new Map())
    golden(typedMap(Ctx.UIS, {}), '83', Ctx.ListMap, new Map())
  })

  it('declared-count forms: short up to 9 (Global) or 60 (context 6), then a UIS count', () => {
    const list = (n: number): number[] => Array.from({ length: n }, () => 0)
    const check = (n: number, ctx: Ctx, head: string): void => {
      const bytes = encode(list(n), ctx)
      expect(bytes.subarray(0, hex(head).length).toString('hex')).toBe(hex(head).toString('hex'))
      expect(decodeAll(bytes, ctx)).toEqual({ ok: true, values: [list(n)] })
    }
    check(9, Ctx.Global, '33')
    check(10, Ctx.Global, '34 3B')
    check(160, Ctx.Global, '34 C7 0A')
    check(60, Ctx.ListMap, '3D')
    check(61, Ctx.ListMap, '3E 3B')
    const map = (n: number): Map<number, number> => new Map(Array.from({ length: n }, (_, i) => [i, i]))
    expect(encode(map(9))[0]).toBe(0x4A)
    expect(encode(map(10)).subarray(0, 2).toString('hex')).toBe('4b3b')
    expect(encode(map(60), Ctx.ListMap)[0]).toBe(0xBF)
    expect(encode(map(61), Ctx.ListMap).subarray(0, 2).toString('hex')).toBe('c03b')
    for (const n of [9, 10, 60, 61, 200]) {
      expect(decodeAll(encode(map(n)))).toEqual({ ok: true, values: [map(n)] })
      expect(decodeAll(encode(map(n), Ctx.ListMap), Ctx.ListMap)).toEqual({ ok: true, values: [map(n)] })
    }
  })

  it('typed lists: opcode, UIS count (long form), then the context byte (§1.7)', () => {
    golden(typedList(Ctx.Numbers, [10, -30, 20]), '42 02 6C 44 76', Ctx.ListMap, [10, -30, 20])
    golden(typedList(Ctx.Numbers, [10, -30, 20]), '38 02 6C 44 76', Ctx.Global, [10, -30, 20])
    const ten = Array.from({ length: 10 }, (_, i) => i)
    golden(typedList(Ctx.UIS, ten), '3F 3B 01 ' + ten.map(i => (0x3B + i).toString(16)).join(' '), Ctx.Global, ten)
    const sixtyOne = Array.from({ length: 61 }, (_, i) => i)
    golden(typedList(Ctx.UIS, sixtyOne), '7C 3B 01 ' + sixtyOne.map(i => (0x3B + i).toString(16)).join(' '), Ctx.ListMap, sixtyOne)
  })

  it('typed maps hold their values in their context', () => {
    golden(typedMap(Ctx.Int32, { a: 1 }), '4D 03 02 61 00 00 00 01', Ctx.Global, m(['a', 1]))
    golden(typedMap(Ctx.Int32, { a: 1 }), 'C2 03 02 61 00 00 00 01', Ctx.ListMap, m(['a', 1]))
    const ten = new Map(Array.from({ length: 10 }, (_, i) => [i, i]))
    const bytes = encode(typedMap(Ctx.Numbers, ten))
    expect(bytes.subarray(0, 3).toString('hex')).toBe('563b02')
    expect(decodeAll(bytes)).toEqual({ ok: true, values: [ten] })
    const sixtyOne = new Map(Array.from({ length: 61 }, (_, i) => [i, i]))
    const bytes6 = encode(typedMap(Ctx.Numbers, sixtyOne), Ctx.ListMap)
    expect(bytes6.subarray(0, 3).toString('hex')).toBe('fe3b02')
    expect(decodeAll(bytes6, Ctx.ListMap)).toEqual({ ok: true, values: [sixtyOne] })
  })

  it('unsized lists end with the null of their context, unsized maps with the UIS null key (§1.7)', () => {
    golden(unsizedList([1, 'a']), '35 A0 04 61 00', Ctx.Global, [1, Buffer.from('a')])
    golden(unsizedList([1]), '3F A0 00', Ctx.ListMap, [1])
    golden(typedList(Ctx.Int32, [1, -2147483648], { unsized: true }), '40 03 00000001 80000000 01 80000000 00', Ctx.Global, [1, -2147483648])
    golden(typedList(Ctx.Float, [1.5], { unsized: true }), '7D 04 3FC00000 FFFFFFFF 00', Ctx.ListMap, [1.5])
    golden(typedList(Ctx.Double, [], { unsized: true }), '40 05 FFFFFFFFFFFFFFFF 00', Ctx.Global, [])
    golden(unsizedMap({ a: null }), '4C 02 61 00 00', Ctx.Global, m(['a', null]))
    golden(unsizedMap({ a: 1 }), 'C1 02 61 A0 00', Ctx.ListMap, m(['a', 1]))
    golden(typedMap(Ctx.UIS, { a: 1 }, { unsized: true }), '57 01 02 61 3C 00', Ctx.Global, m(['a', 1]))
    golden(typedMap(Ctx.UIS, { a: 1 }, { unsized: true }), 'FF 01 02 61 3C 00', Ctx.ListMap, m(['a', 1]))
  })

  it('an unsized list cannot hold the null that would end it', () => {
    expect(() => encode(unsizedList([null]))).toThrow(TypeError)
    expect(() => encode(typedList(Ctx.Int32, [null], { unsized: true }))).toThrow(TypeError)
  })

  it('map keys are UIS text or unsigned integers; children of context-6 untyped containers are Global', () => {
    golden(new Map([[1310114574, [true]]]), '84 FF 4E 16 C3 0E 2B 01', Ctx.ListMap)
    golden([[1]], '02 2B A0', Ctx.ListMap)
  })
})

describe('fixed-width contexts (§1.5)', () => {
  it('Int32: 4 bytes; 80 00 00 00 escapes null (00) and −2147483648 (01)', () => {
    golden(7, '00 00 00 07', Ctx.Int32)
    golden(-1, 'FF FF FF FF', Ctx.Int32)
    golden(-2147483648, '80 00 00 00 01', Ctx.Int32)
    golden(null, '80 00 00 00 00', Ctx.Int32)
  })

  it('Float and Double: IEEE; all ones escapes null (00) and the all-ones NaN (01)', () => {
    golden(1.5, '3F C0 00 00', Ctx.Float)
    golden(null, 'FF FF FF FF 00', Ctx.Float)
    expect(decodeAll(hex('FF FF FF FF 01'), Ctx.Float)).toEqual({ ok: true, values: [NaN] })
    golden(Math.PI, '40 09 21 FB 54 44 2D 18', Ctx.Double)
    golden(null, 'FF FF FF FF FF FF FF FF 00', Ctx.Double)
    expect(decodeAll(hex('FF FF FF FF FF FF FF FF 01'), Ctx.Double)).toEqual({ ok: true, values: [NaN] })
    expect(decodeAll(hex('FF FF FF FF 02'), Ctx.Float)).toEqual({ ok: false, reason: 'bysant.invalid.escape' })
  })

  it('rounds a double written in the Float context to float32', () => {
    expect(decodeAll(encode(0.1, Ctx.Float), Ctx.Float)).toEqual({ ok: true, values: [Math.fround(0.1)] })
  })
})

describe('objects and class definitions (§1.2, §1.7)', () => {
  const point: ClassDef = { id: 20, name: 'Point', fields: [{ name: 'x', ctx: Ctx.Numbers }, { name: 'y', ctx: Ctx.Int32 }] }

  it('writes fields in class order, each in its context, without tags; class ids above 15 use 70', () => {
    golden(bysantObject(20, [1, 2]), '70 3F 63 00 00 00 02', Ctx.Global, bysantObject(20, [1, 2]), [point])
    golden(bysantObject(3, [true]), '63 01', Ctx.Global, bysantObject(3, [true]), [{ id: 3, fields: [{ ctx: Ctx.Global }] }])
  })

  it('reads an in-band definition (named 71 and short 72) and applies it to what follows in the stream', () => {
    expect(encodeClassDef(point).toString('hex')).toBe(hex('71 4F 06 50 6F 69 6E 74 3D 02 78 02 02 79 03').toString('hex'))
    expect(encodeClassDef({ id: 20, fields: point.fields }).toString('hex')).toBe(hex('72 4F 3D 02 03').toString('hex'))
    for (const def of [encodeClassDef(point), encodeClassDef({ id: 20, fields: point.fields })]) {
      const stream = Buffer.concat([def, hex('70 3F 63 00 00 00 02'), hex('70 3F 62 00 00 00 01')])
      expect(decodeAll(stream)).toEqual({ ok: true, values: [bysantObject(20, [1, 2]), bysantObject(20, [0, 1])] })
    }
  })

  it('a definition inside a container is not an item, and an in-band one overrides an out-of-band one', () => {
    const def = encodeClassDef({ id: 1, fields: [{ ctx: Ctx.UIS }] })
    const stream = Buffer.concat([hex('2B'), def, hex('61 3C')]) // list of 1 item, preceded by a definition
    expect(decodeAll(stream, Ctx.Global, [{ id: 1, fields: [{ ctx: Ctx.Int32 }] }])).toEqual({ ok: true, values: [[bysantObject(1, [1])]] })
  })

  it('refuses an object of an unknown class: the whole stream is invalid (§1.7)', () => {
    expect(decodeAll(hex('65 01'))).toEqual({ ok: false, reason: 'bysant.unknown.class' })
  })

  it('objects and definitions exist only where the context is Global', () => {
    expect(decodeAll(hex('61'), Ctx.UIS)).toEqual({ ok: true, values: [0x61 - 0x3B] }) // an unsigned int there
    expect(decodeAll(hex('71'), Ctx.Numbers)).toEqual({ ok: true, values: [0x71 - 0x62] })
    expect(decodeAll(hex('7E'), Ctx.ListMap)).toEqual({ ok: false, reason: 'bysant.invalid.opcode' })
    expect(() => encode(bysantObject(3, [true]), Ctx.ListMap, [{ id: 3, fields: [{ ctx: Ctx.Global }] }])).toThrow(TypeError)
  })
})

describe('refusals', () => {
  it('free opcodes, unknown context ids, null keys', () => {
    expect(decodeAll(hex('58'))).toEqual({ ok: false, reason: 'bysant.invalid.opcode' })
    expect(decodeAll(hex('73'))).toEqual({ ok: false, reason: 'bysant.invalid.opcode' })
    expect(decodeAll(hex('36 07 00'))).toEqual({ ok: false, reason: 'bysant.invalid.context' })
    expect(decodeAll(hex('42 00 A0'))).toEqual({ ok: false, reason: 'bysant.null.key' })
    expect(decodeAll(hex('42 01 A0'))).toEqual({ ok: true, values: [new Map([['', 1]])] }) // the empty key is a key
    expect(decodeAll(hex('42 FF'))).toEqual({ ok: false, reason: 'bysant.truncated' })
  })

  it('a stream that ends inside a value is truncated', () => {
    expect(decodeAll(hex('2D A0 A1'))).toEqual({ ok: false, reason: 'bysant.truncated' })
    expect(decodeAll(hex('FC 00'))).toEqual({ ok: false, reason: 'bysant.truncated' })
  })
})

describe('pitfalls (§1.10)', () => {
  it('the Numbers large range starts at 528482 (the spec PDF says 528481, which the medium range already holds)', () => {
    golden(528481, 'EB FF FF', Ctx.Numbers)
    golden(528482, 'F4 00 00 00', Ctx.Numbers)
    golden(-528482, 'F8 00 00 00', Ctx.Numbers)
  })

  it('the UIS long string form starts at 2096 bytes (the spec prose says 2095, the last of the medium form)', () => {
    expect(encode(Buffer.alloc(2095), Ctx.UIS).subarray(0, 2).toString('hex')).toBe('38ff')
    expect(encode(Buffer.alloc(2096), Ctx.UIS).subarray(0, 3).toString('hex')).toBe('390000')
    expect(decodeAll(Buffer.concat([hex('39 00 00'), Buffer.alloc(2096, 1)]), Ctx.UIS)).toEqual({ ok: true, values: [Buffer.alloc(2096, 1)] })
  })

  it('a reader can read top-level values of another context', () => {
    const reader = new BysantReader({ ctx: Ctx.Numbers })
    reader.push(hex('F4 00 00 00 62'))
    expect([reader.next(), reader.next(), reader.next()]).toMatchObject([{ ok: true, value: 528482 }, { ok: true, value: 0 }, 'more'])
  })
})
