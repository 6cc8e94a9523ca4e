// The Bysant encoder. It makes the reference C serializer's choices (docs/protocols/m3da.md) so that our bytes equal
// theirs: smallest integer and string forms, integral doubles as integers, float32 when exact, else float64.
// Un-encodable input (a boolean in UIS, null in an unsized list…) is a programming error and throws a TypeError.
import { containerForms, intRanges, MAX_CHUNK, Op, rangeMax, rangeMin, stringForms, type ContainerForm, type Range } from './forms.js'
import { Ctx, isBysantObject, isCtx, TypedList, TypedMap, type ClassDef, type Encodable, type EncodableObject, type Entries, type MapKey } from './types.js'
import { Writer } from './writer.js'

// Bound once: under tsx an imported binding is read through a getter, which the per-value paths feel.
const { Global: GLOBAL, UIS, Numbers: NUMBERS, Int32: INT32, Float: FLOAT, Double: DOUBLE, ListMap: LIST_MAP } = Ctx
const OP = Op
const INT_RANGES = intRanges
const STRING_FORMS = stringForms
const CONTAINER_FORMS = containerForms
const LIST_FORM = TypedList
const MAP_FORM = TypedMap
const isObject = isBysantObject
const validCtx = isCtx
const min = rangeMin
const max = rangeMax

type Classes = ReadonlyMap<number, ClassDef>

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const UINT32_MAX = 0xFFFFFFFF

const classMaps = new WeakMap<readonly ClassDef[], Classes>()

/** Later definitions of the same id win, as an in-band redefinition does (§1.7). */
export function classMap (classes: readonly ClassDef[]): Classes {
  let map = classMaps.get(classes)
  if (map === undefined) {
    map = new Map(classes.map(c => [c.id, c]))
    classMaps.set(classes, map)
  }
  return map
}

/** `value` written in context `ctx` (a top-level stream value is in Global, §1.1). */
export function encode (value: Encodable, ctx: Ctx = GLOBAL, classes: readonly ClassDef[] = []): Buffer {
  // One working buffer for every call (encoding is synchronous); done() copies the bytes out.
  scratch.reset()
  write(scratch, value, ctx, classMap(classes))
  return scratch.done()
}

const scratch = new Writer(1024)

/** Writes `value` in context `ctx` on an existing writer (used by encoders of composite M3DA objects). */
export function write (w: Writer, v: Encodable, ctx: Ctx, classes: Classes): void {
  switch (ctx) {
    case GLOBAL: return writeGlobal(w, v, classes)
    case UIS: return writeUis(w, v)
    case NUMBERS: return writeNumbers(w, v)
    case INT32: return writeInt32(w, v)
    case FLOAT: return writeFixedFloat(w, v, 4)
    case DOUBLE: return writeFixedFloat(w, v, 8)
    case LIST_MAP: return writeListMap(w, v, ctx, classes)
  }
}

function refuse (v: unknown, ctx: Ctx): never {
  const what = v === null ? 'null' : Buffer.isBuffer(v) ? 'bytes' : Array.isArray(v) ? 'list' : typeof v
  throw new TypeError(`bysant: cannot write ${what} in context ${ctx}`)
}

function writeGlobal (w: Writer, v: Encodable, classes: Classes): void {
  if (v === null) return w.byte(OP.Null)
  if (typeof v === 'boolean') return w.byte(v ? OP.True : OP.False)
  if (typeof v === 'number' || typeof v === 'bigint') return writeNumber(w, v, GLOBAL)
  if (typeof v === 'string' || Buffer.isBuffer(v)) return writeString(w, v, GLOBAL)
  if (isObject(v)) return writeObject(w, v, classes)
  writeListMap(w, v, GLOBAL, classes)
}

function writeUis (w: Writer, v: Encodable): void {
  if (v === null) return w.byte(OP.Null)
  if (typeof v === 'string' || Buffer.isBuffer(v)) return writeString(w, v, UIS)
  if (typeof v === 'number' || typeof v === 'bigint') return writeUint(w, v)
  refuse(v, UIS)
}

function writeNumbers (w: Writer, v: Encodable): void {
  if (v === null) return w.byte(OP.Null)
  if (typeof v === 'number' || typeof v === 'bigint') return writeNumber(w, v, NUMBERS)
  refuse(v, NUMBERS)
}

// §1.5: 80 00 00 00 is an escape; + 00 = null, + 01 = −2147483648.
function writeInt32 (w: Writer, v: Encodable): void {
  const n = typeof v === 'bigint' ? Number(v) : v
  if (n === null) return w.bytes(NULL_INT32)
  if (typeof n !== 'number' || !Number.isInteger(n) || n < -0x80000000 || n > 0x7FFFFFFF) return refuse(v, INT32)
  if (n === -0x80000000) return w.bytes(MIN_INT32)
  w.int32(n)
}

const NULL_INT32 = Buffer.from([0x80, 0, 0, 0, 0])
const MIN_INT32 = Buffer.from([0x80, 0, 0, 0, 1])
const NULL_FLOAT = Buffer.from([0xFF, 0xFF, 0xFF, 0xFF, 0])
const NULL_DOUBLE = Buffer.from([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0])

// §1.5: all-ones is an escape; JS writes NaN as the quiet NaN, never as all ones, so values need no escaping.
// A value that is not exactly a float32 is rounded: choosing the Float context is choosing that precision.
function writeFixedFloat (w: Writer, v: Encodable, width: 4 | 8): void {
  if (v === null) return w.bytes(width === 4 ? NULL_FLOAT : NULL_DOUBLE)
  const n = typeof v === 'bigint' ? Number(v) : v
  if (typeof n !== 'number') return refuse(v, width === 4 ? FLOAT : DOUBLE)
  if (width === 4) w.float32(n)
  else w.float64(n)
}

/** Integer forms of §1.2/§1.4, then int32, int64; non-integers as float32 when exact, else float64 (§1.7). */
function writeNumber (w: Writer, v: number | bigint, ctx: Ctx): void {
  if (typeof v === 'bigint') {
    if (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) return writeNumber(w, Number(v), ctx)
    if (v < INT64_MIN || v > INT64_MAX) throw new TypeError('bysant: integer out of the int64 range')
    w.byte(OP.Int64)
    return w.int64(v)
  }
  if (Number.isInteger(v)) {
    // -0 is integral and written as 0, like the C serializer's (double)(int64)x == x test.
    if (writeRange(w, INT_RANGES[ctx] ?? [], v === 0 ? 0 : v)) return
    if (v >= -0x80000000 && v <= 0x7FFFFFFF) {
      w.byte(OP.Int32)
      return w.int32(v)
    }
    if (v >= -(2 ** 63) && v < 2 ** 63) {
      w.byte(OP.Int64)
      return w.int64(BigInt(v))
    }
  }
  if (Math.fround(v) === v) {
    w.byte(OP.Float32)
    return w.float32(v)
  }
  w.byte(OP.Float64)
  w.float64(v)
}

function writeUint (w: Writer, v: number | bigint): void {
  const n = Number(v)
  if (!Number.isInteger(n) || n < 0 || n > UINT32_MAX) throw new TypeError(`bysant: ${n} is not an unsigned 32-bit integer (UIS)`)
  if (writeRange(w, INT_RANGES[UIS] ?? [], n)) return
  w.byte(OP.Uint32)
  w.uint(n, 4)
}

/** Writes v with the first range that holds it; false when none does. */
function writeRange (w: Writer, ranges: readonly Range[], v: number): boolean {
  for (const r of ranges) {
    if (v < min(r) || v > max(r)) continue
    const x = r.negative ? -v - r.offset : v - r.offset
    const unit = 256 ** r.bytes
    w.byte(r.first + Math.floor(x / unit))
    if (r.bytes > 0) w.uint(x % unit, r.bytes)
    return true
  }
  return false
}

function writeString (w: Writer, s: string | Buffer, ctx: Ctx): void {
  const forms = STRING_FORMS[ctx]
  if (forms === undefined) return refuse(s, ctx)
  const len = typeof s === 'string' ? Buffer.byteLength(s) : s.length
  if (writeRange(w, forms.ranges, len)) {
    if (typeof s === 'string') w.utf8(s, len)
    else w.bytes(s)
    return
  }
  // §1.7: chunks of at most 0xFFFF bytes, ended by an empty chunk.
  const bytes = typeof s === 'string' ? Buffer.from(s) : s
  w.byte(forms.chunked)
  for (let at = 0; at < bytes.length; at += MAX_CHUNK) {
    const chunk = bytes.subarray(at, at + MAX_CHUNK)
    w.uint(chunk.length, 2)
    w.bytes(chunk)
  }
  w.uint(0, 2)
}

function writeObject (w: Writer, o: EncodableObject, classes: Classes): void {
  const def = classes.get(o.classId)
  if (def === undefined) throw new TypeError(`bysant: no definition of class ${o.classId}`)
  if (def.fields.length !== o.fields.length) throw new TypeError(`bysant: class ${o.classId} has ${def.fields.length} fields, got ${o.fields.length}`)
  if (o.classId < 16) w.byte(OP.Object + o.classId)
  else {
    w.byte(OP.ObjectLong)
    writeUint(w, o.classId - 16)
  }
  def.fields.forEach((f, i) => write(w, o.fields[i] as Encodable, f.ctx, classes))
}

/** Lists and maps, in Global (§1.2) or Lists & Maps (§1.6). */
function writeListMap (w: Writer, v: Encodable, ctx: Ctx, classes: Classes): void {
  const forms = CONTAINER_FORMS[ctx]
  if (forms === undefined) return refuse(v, ctx)
  if (v === null) return w.byte(OP.Null)
  if (v instanceof LIST_FORM) return writeList(w, v.items, v.ctx, v.unsized, v.ctx === null ? forms.list : forms.typedList, forms.list, classes)
  if (v instanceof MAP_FORM) return writeMap(w, v.entries, v.ctx, v.unsized, v.ctx === null ? forms.map : forms.typedMap, forms.map, classes)
  if (Array.isArray(v)) return writeList(w, v, null, false, forms.list, forms.list, classes)
  if (typeof v === 'object' && !Buffer.isBuffer(v) && !isObject(v)) return writeMap(w, v as Entries, null, false, forms.map, forms.map, classes)
  refuse(v, ctx)
}

/** Opcode, then (long form) the UIS count, then the item context (§1.7 header order); false if empty. */
function writeHeader (w: Writer, form: ContainerForm, empty: ContainerForm, n: number, itemCtx: Ctx | null, unsized: boolean): boolean {
  if (unsized) w.byte(form.unsized)
  else if (n === 0) {
    w.byte(empty.short) // §1.7: an empty container carries no context byte
    return false
  } else if (n - form.offset < form.shortCount) w.byte(form.short + n - form.offset)
  else {
    w.byte(form.long)
    writeUint(w, n - form.longOffset)
  }
  if (itemCtx !== null) {
    if (!validCtx(itemCtx)) throw new TypeError(`bysant: unknown context ${String(itemCtx)}`)
    w.byte(itemCtx)
  }
  return true
}

function writeList (w: Writer, items: readonly Encodable[], itemCtx: Ctx | null, unsized: boolean,
  form: ContainerForm, empty: ContainerForm, classes: Classes): void {
  const ctx = itemCtx ?? GLOBAL
  if (!writeHeader(w, form, empty, items.length, itemCtx, unsized)) return
  for (const item of items) {
    // §1.7: an unsized list ends at the first null of its context, so it cannot hold one.
    if (unsized && item === null) throw new TypeError('bysant: an unsized list cannot hold null')
    write(w, item, ctx, classes)
  }
  if (unsized) write(w, null, ctx, classes)
}

function writeMap (w: Writer, entries: Entries, itemCtx: Ctx | null, unsized: boolean,
  form: ContainerForm, empty: ContainerForm, classes: Classes): void {
  const pairs: Array<[MapKey, Encodable]> = entries instanceof Map ? [...entries] : Object.entries(entries)
  const ctx = itemCtx ?? GLOBAL
  if (!writeHeader(w, form, empty, pairs.length, itemCtx, unsized)) return
  for (const [k, v] of pairs) {
    writeUis(w, k) // §1.1: keys are always UIS, never null
    write(w, v, ctx, classes)
  }
  if (unsized) w.byte(OP.Null) // the UIS null where a key would be
}

/** A class definition: `71` (named) when the class has a name, else `72` (§1.2). */
export function encodeClassDef (def: ClassDef): Buffer {
  const w = new Writer()
  const named = def.name !== undefined
  w.byte(named ? OP.ClassDefNamed : OP.ClassDefShort)
  writeUint(w, def.id)
  if (named) writeString(w, def.name ?? '', UIS)
  writeUint(w, def.fields.length)
  for (const f of def.fields) {
    if (named) writeString(w, f.name ?? '', UIS)
    w.byte(f.ctx)
  }
  return w.done()
}
