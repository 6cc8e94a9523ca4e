// One top-level Bysant value from the start of a buffer (docs/protocols/m3da.md). Total: whatever the bytes, the
// answer is a value, "need N bytes" (the stream may go on: §1.8, M3DA over TCP has no framing) or a refusal.
// Inside, running out of bytes and refusing unwind the recursion as thrown sentinels, caught at the one entry.
import type { Range } from './forms.js'
import { opTables, type OpEntry } from './opcode-table.js'
import { bysantObject, Ctx, isCtx, type BysantValue, type ClassDef } from './types.js'

export interface Limits { maxDepth: number, maxBytes: number }

export type ParseResult =
  | { ok: true, value: BysantValue, end: number, classes: ReadonlyMap<number, ClassDef> }
  | { ok: 'more', need: number }
  | { ok: false, reason: string }

class More { constructor (readonly need: number) {} }
class Refusal { constructor (readonly reason: string) {} }

const END = Symbol('end') // the null that ends an unsized container

// Bound once here: under tsx an imported binding is read through a getter, which the per-byte paths feel.
const { Global, UIS, Int32, Float, Double } = Ctx
const tables = opTables
const makeObject = bysantObject
const validCtx = isCtx

export function parseValue (buf: Buffer, start: number, ctx: Ctx, classes: ReadonlyMap<number, ClassDef>, limits: Limits): ParseResult {
  const p = new Parser(buf, start, classes, limits)
  try {
    const value = p.value(ctx)
    return { ok: true, value, end: p.pos, classes: p.classes }
  } catch (e) {
    if (e instanceof More) return { ok: 'more', need: e.need }
    if (e instanceof Refusal) return { ok: false, reason: e.reason }
    return { ok: false, reason: 'bysant.invalid' } // e.g. a stack exhausted below maxDepth: still a refusal
  }
}

class Parser {
  private depth = 0
  private ownClasses = false

  constructor (private readonly buf: Buffer, public pos: number, public classes: ReadonlyMap<number, ClassDef>,
    private readonly limits: Limits) {}

  private need (n: number): void {
    if (this.pos + n > this.buf.length) throw new More(this.pos + n)
  }

  private u8 (): number {
    this.need(1)
    return this.buf[this.pos++] as number
  }

  private uint (count: number): number {
    this.need(count)
    let n = 0
    for (let i = 0; i < count; i++) n = n * 256 + (this.buf[this.pos++] as number)
    return n
  }

  private take (n: number): Buffer {
    if (n > this.limits.maxBytes) throw new Refusal('bysant.too.large')
    this.need(n)
    const b = this.buf.subarray(this.pos, this.pos + n)
    this.pos += n
    return b
  }

  value (ctx: Ctx): BysantValue {
    const v = this.valueOrEnd(ctx)
    return v === END ? null : v
  }

  /** A value, or END where the null of `ctx` stands (the terminator of unsized lists, §1.7). */
  private valueOrEnd (ctx: Ctx): BysantValue | typeof END {
    switch (ctx) {
      case Int32:
      case Float:
      case Double: return this.fixed(ctx)
    }
    const table = tables[ctx]
    if (table === undefined) throw new Refusal('bysant.invalid.context')
    for (;;) {
      const entry = table[this.u8()]
      if (entry === undefined) throw new Refusal('bysant.invalid.opcode')
      // §1.7: a class definition is not a value; the value follows it.
      if (entry.kind === 'classDef') this.classDef(entry.named)
      else return this.entry(entry)
    }
  }

  private entry (e: OpEntry): BysantValue | typeof END {
    switch (e.kind) {
      case 'null': return END
      case 'true': return true
      case 'false': return false
      case 'int': return this.int(e.range)
      case 'int32': this.need(4); return this.advance(this.buf.readInt32BE(this.pos), 4)
      case 'int64': this.need(8); return this.advance(safe(this.buf.readBigInt64BE(this.pos)), 8)
      case 'float32': this.need(4); return this.advance(this.buf.readFloatBE(this.pos), 4)
      case 'float64': this.need(8); return this.advance(this.buf.readDoubleBE(this.pos), 8)
      case 'uint32': return this.uint(4)
      case 'string': return this.take(this.int(e.range))
      case 'chunked': return this.chunked()
      case 'object': return this.object(e.classId)
      case 'objectLong': return this.object(this.uisNumber() + 16)
      case 'classDef': throw new Refusal('bysant.invalid.opcode') // handled by valueOrEnd
      case 'list':
      case 'map': return this.container(e)
    }
  }

  private advance<T> (v: T, n: number): T {
    this.pos += n
    return v
  }

  private int (r: Range): number {
    const x = (this.buf[this.pos - 1] as number - r.first) * 256 ** r.bytes + (r.bytes > 0 ? this.uint(r.bytes) : 0)
    return r.negative ? -(r.offset + x) : r.offset + x
  }

  /** §1.5: a fixed-width value; the all-ones (Int32: 80 00 00 00) pattern escapes null (00) or itself (01). */
  private fixed (ctx: typeof Int32 | typeof Float | typeof Double): number | typeof END {
    const width = ctx === Double ? 8 : 4
    this.need(width)
    const hi = this.buf.readUInt32BE(this.pos)
    const escape = ctx === Int32
      ? hi === 0x80000000
      : hi === 0xFFFFFFFF && (width === 4 || this.buf.readUInt32BE(this.pos + 4) === 0xFFFFFFFF)
    if (!escape) {
      const v = ctx === Int32 ? hi | 0 : ctx === Float ? this.buf.readFloatBE(this.pos) : this.buf.readDoubleBE(this.pos)
      this.pos += width
      return v
    }
    this.need(width + 1)
    const code = this.buf[this.pos + width]
    this.pos += width + 1
    if (code === 0) return END
    if (code === 1) return ctx === Int32 ? -0x80000000 : NaN
    throw new Refusal('bysant.invalid.escape')
  }

  /** §1.7: 16-bit length + bytes, until an empty chunk. */
  private chunked (): Buffer {
    const parts: Buffer[] = []
    let total = 0
    for (;;) {
      const len = this.uint(2)
      if (len === 0) return parts.length === 1 ? parts[0] as Buffer : Buffer.concat(parts, total)
      total += len
      if (total > this.limits.maxBytes) throw new Refusal('bysant.too.large')
      parts.push(this.take(len))
    }
  }

  private uisNumber (): number {
    const v = this.value(UIS)
    if (typeof v !== 'number') throw new Refusal('bysant.invalid.number')
    return v
  }

  private ctxByte (): Ctx {
    const c = this.u8()
    if (!validCtx(c)) throw new Refusal('bysant.invalid.context')
    return c
  }

  private enter (): void {
    if (++this.depth > this.limits.maxDepth) throw new Refusal('bysant.too.deep')
  }

  /** Header order (§1.7): opcode, UIS count (long form), context byte (typed); then the items. */
  private container (e: Extract<OpEntry, { kind: 'list' | 'map' }>): BysantValue {
    this.enter()
    let count = -1 // unsized
    if ('count' in e) count = e.count
    else if ('longOffset' in e) count = this.uisNumber() + e.longOffset
    if (count > this.limits.maxBytes) throw new Refusal('bysant.too.large') // each item takes a byte at least
    // Children of untyped containers are Global (§1.6), even in the Lists & Maps context.
    const itemCtx = e.typed ? this.ctxByte() : Global
    const v = e.kind === 'list' ? this.list(count, itemCtx) : this.map(count, itemCtx)
    this.depth--
    return v
  }

  private list (count: number, ctx: Ctx): BysantValue[] {
    const items: BysantValue[] = []
    if (count >= 0) {
      for (let i = 0; i < count; i++) items.push(this.value(ctx))
      return items
    }
    for (;;) {
      const v = this.valueOrEnd(ctx)
      if (v === END) return items
      items.push(v)
    }
  }

  private map (count: number, ctx: Ctx): Map<string | number, BysantValue> {
    const m = new Map<string | number, BysantValue>()
    for (let left = count; left !== 0; left--) { // count −1: unsized, until the null key
      const k = this.value(UIS) // §1.1: keys are read in UIS; the UIS null ends an unsized map
      if (k === null) {
        if (count < 0) return m
        throw new Refusal('bysant.null.key')
      }
      m.set(typeof k === 'number' ? k : text(k as Buffer), this.value(ctx))
    }
    return m
  }

  private object (classId: number): BysantValue {
    const def = this.classes.get(classId)
    if (def === undefined) throw new Refusal('bysant.unknown.class') // §1.7: the whole stream is invalid
    this.enter()
    const fields = def.fields.map(f => this.value(f.ctx))
    this.depth--
    return makeObject(classId, fields)
  }

  /** `71`/`72` (§1.2); it applies to what follows, and to the caller once the value is whole. */
  private classDef (named: boolean): void {
    const id = this.uisNumber()
    const name = named ? this.uisText() : undefined
    const count = this.uisNumber()
    if (count > this.limits.maxBytes) throw new Refusal('bysant.too.large')
    const fields: ClassDef['fields'] = []
    for (let i = 0; i < count; i++) {
      const fieldName = named ? this.uisText() : undefined
      fields.push(fieldName === undefined ? { ctx: this.ctxByte() } : { name: fieldName, ctx: this.ctxByte() })
    }
    if (!this.ownClasses) {
      this.classes = new Map(this.classes)
      this.ownClasses = true
    }
    (this.classes as Map<number, ClassDef>).set(id, name === undefined ? { id, fields } : { id, name, fields })
  }

  private uisText (): string {
    const v = this.value(UIS)
    if (!Buffer.isBuffer(v)) throw new Refusal('bysant.invalid.string')
    return text(v)
  }
}

/** int64 as a number when it is exactly one, else a bigint (§1.8). */
function safe (n: bigint): number | bigint {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n
}

/** Keys are short and mostly ASCII: building those in JS is quicker than a call into Buffer's UTF-8 decoder. */
function text (b: Buffer): string {
  if (b.length > 24) return b.toString('utf8')
  let s = ''
  for (let i = 0; i < b.length; i++) {
    const c = b[i] as number
    if (c >= 0x80) return b.toString('utf8')
    s += String.fromCharCode(c)
  }
  return s
}
