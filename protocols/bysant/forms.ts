// The opcode tables of docs/protocols/m3da.md as data, read by both the encoder and the decoder so that the two
// cannot disagree.
import { Ctx } from './types.js'

/**
 * A run of opcodes holding a magnitude: the opcode gives the high part, `bytes` following bytes the low part.
 * magnitude x = (op − first)·256^bytes + following; the value is `offset + x`, or `−(offset + x)` when negative.
 */
export interface Range { first: number, ops: number, bytes: number, offset: number, negative: boolean }

const range = (first: number, ops: number, bytes: number, offset: number, negative = false): Range =>
  ({ first, ops, bytes, offset, negative })

export const rangeMin = (r: Range): number => r.negative ? -(r.offset + rangeSpan(r) - 1) : r.offset
export const rangeMax = (r: Range): number => r.negative ? -r.offset : r.offset + rangeSpan(r) - 1
const rangeSpan = (r: Range): number => r.ops * 256 ** r.bytes

/** Integer forms, smallest first (§1.2 Global, §1.3 UIS, §1.4 Numbers). */
export const intRanges: Partial<Record<Ctx, readonly Range[]>> = {
  [Ctx.Global]: [
    range(0x80, 0x60, 0, -31), // tiny: op − 0x9F
    range(0xE0, 8, 1, 65), range(0xE8, 8, 1, 32, true),
    range(0xF0, 4, 2, 2113), range(0xF4, 4, 2, 2080, true),
    range(0xF8, 2, 3, 264257), range(0xFA, 2, 3, 264224, true)
  ],
  [Ctx.UIS]: [
    range(0x3B, 140, 0, 0), range(0xC7, 32, 1, 140), range(0xE7, 16, 2, 8332), range(0xF7, 8, 3, 1056908)
  ],
  // §1.4 and §1.10: the large range starts at 528482 (the spec PDF's 528481 is a typo).
  [Ctx.Numbers]: [
    range(0x01, 0xC3, 0, -97),
    range(0xC4, 16, 1, 98), range(0xD4, 16, 1, 98, true),
    range(0xE4, 8, 2, 4194), range(0xEC, 8, 2, 4194, true),
    range(0xF4, 4, 3, 528482), range(0xF8, 4, 3, 528482, true)
  ]
}

/** String length forms and the chunked-string opcode (§1.2, §1.3; §1.10: UIS long form starts at 2096). */
export const stringForms: Partial<Record<Ctx, { ranges: readonly Range[], chunked: number }>> = {
  [Ctx.Global]: { ranges: [range(0x03, 33, 0, 0), range(0x24, 4, 1, 33), range(0x28, 1, 2, 1057)], chunked: 0x29 },
  [Ctx.UIS]: { ranges: [range(0x01, 48, 0, 0), range(0x31, 8, 1, 48), range(0x39, 1, 2, 2096)], chunked: 0x3A }
}

/**
 * One container kind in one context: `short` + count − offset for small counts (offset 0 means `short` itself is
 * the empty container), `long` + UIS (count − longOffset) beyond, `unsized` for no declared length.
 */
export interface ContainerForm { short: number, shortCount: number, offset: number, long: number, longOffset: number, unsized: number }

export type ContainerKind = 'list' | 'typedList' | 'map' | 'typedMap'

const form = (short: number, shortCount: number, offset: number, long: number, longOffset: number, unsized: number): ContainerForm =>
  ({ short, shortCount, offset, long, longOffset, unsized })

/** §1.2 (Global) and §1.6 (Lists & Maps). Empty containers are always the untyped form (§1.7: no ctx byte). */
export const containerForms: Partial<Record<Ctx, Record<ContainerKind, ContainerForm>>> = {
  [Ctx.Global]: {
    list: form(0x2A, 10, 0, 0x34, 10, 0x35),
    typedList: form(0x36, 9, 1, 0x3F, 10, 0x40),
    map: form(0x41, 10, 0, 0x4B, 10, 0x4C),
    typedMap: form(0x4D, 9, 1, 0x56, 10, 0x57)
  },
  [Ctx.ListMap]: {
    list: form(0x01, 61, 0, 0x3E, 61, 0x3F),
    typedList: form(0x40, 60, 1, 0x7C, 61, 0x7D),
    map: form(0x83, 61, 0, 0xC0, 61, 0xC1),
    typedMap: form(0xC2, 60, 1, 0xFE, 61, 0xFF)
  }
}

/** Fixed-width opcodes of Global and Numbers (§1.2, §1.4), and UIS uint32 (§1.3). */
export const Op = {
  Null: 0x00,
  True: 0x01,
  False: 0x02,
  Int32: 0xFC,
  Int64: 0xFD,
  Float32: 0xFE,
  Float64: 0xFF,
  Uint32: 0xFF,
  Object: 0x60, // 0x60–0x6F: class id 0–15
  ObjectLong: 0x70, // UIS (classId − 16)
  ClassDefNamed: 0x71,
  ClassDefShort: 0x72
} as const

/** Largest chunk of a chunked string (§1.7: 16-bit chunk length). */
export const MAX_CHUNK = 0xFFFF
