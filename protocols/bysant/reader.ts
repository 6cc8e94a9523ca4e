// Incremental decoding (docs/protocols/m3da.md): bytes are pushed as they arrive and whole top-level values come out.
// A value is parsed again from its first byte when more bytes come, but only once the bytes it was known to lack
// have arrived, so a large string (an M3DA payload) is parsed once, not once per TCP chunk.
import { parseValue, type Limits } from './parse.js'
import { Ctx, type BysantValue, type ClassDef } from './types.js'
import { classMap } from './encode.js'

export interface ReaderOptions {
  /** Out-of-band classes (M3DA's predefined ones); in-band definitions add to and override them (§1.7). */
  classes?: readonly ClassDef[]
  /** Nesting of containers and objects allowed (§1.8: guard recursion). Default 64. */
  maxDepth?: number
  /** Largest top-level value, in bytes, and largest declared length. Default 4 MiB. */
  maxBytes?: number
  /** Context of the top-level values. Default Global (§1.1). */
  ctx?: Ctx
}

export type ReadResult = { ok: true, value: BysantValue, bytes: Buffer } | 'more' | { ok: false, reason: string }

export const DEFAULT_LIMITS: Limits = { maxDepth: 64, maxBytes: 4 * 1024 * 1024 }

const limitsOf = (o: ReaderOptions): Limits =>
  ({ maxDepth: o.maxDepth ?? DEFAULT_LIMITS.maxDepth, maxBytes: o.maxBytes ?? DEFAULT_LIMITS.maxBytes })

export class BysantReader {
  private chunks: Buffer[] = []
  private size = 0
  private need = 1
  private failure: string | null = null
  private classes: ReadonlyMap<number, ClassDef>
  private readonly limits: Limits
  private readonly ctx: Ctx

  constructor (opts: ReaderOptions = {}) {
    this.classes = classMap(opts.classes ?? [])
    this.limits = limitsOf(opts)
    this.ctx = opts.ctx ?? Ctx.Global
  }

  /** Bytes received and not yet returned as a value. */
  get buffered (): number { return this.size }

  push (chunk: Buffer): void {
    if (chunk.length === 0 || this.failure !== null) return
    this.chunks.push(chunk)
    this.size += chunk.length
  }

  /** The next whole top-level value, 'more' when bytes are missing, or a refusal (the stream is then unusable). */
  next (): ReadResult {
    if (this.failure !== null) return { ok: false, reason: this.failure }
    if (this.size < this.need) return 'more'
    const buf = this.chunks.length === 1 ? this.chunks[0] as Buffer : Buffer.concat(this.chunks, this.size)
    this.chunks = [buf]
    const r = parseValue(buf, 0, this.ctx, this.classes, this.limits)
    if (r.ok === 'more') {
      if (r.need > this.limits.maxBytes) return this.fail('bysant.too.large')
      this.need = r.need
      return 'more'
    }
    if (r.ok === false) return this.fail(r.reason)
    const rest = buf.subarray(r.end)
    this.chunks = rest.length > 0 ? [rest] : []
    this.size = rest.length
    this.need = 1
    this.classes = r.classes
    return { ok: true, value: r.value, bytes: buf.subarray(0, r.end) }
  }

  private fail (reason: string): { ok: false, reason: string } {
    this.failure = reason
    this.chunks = []
    this.size = 0
    return { ok: false, reason }
  }
}

/** Every top-level value of a whole stream; a stream that ends inside a value is `bysant.truncated`. */
export function decodeAll (buf: Buffer, ctx: Ctx = Ctx.Global, classes: readonly ClassDef[] = [], opts: { maxDepth?: number } = {}):
{ ok: true, values: BysantValue[] } | { ok: false, reason: string } {
  // The whole stream is here: a length declared beyond its end is truncation, found without allocating anything.
  const limits = { maxDepth: opts.maxDepth ?? DEFAULT_LIMITS.maxDepth, maxBytes: Number.MAX_SAFE_INTEGER }
  let known = classMap(classes)
  const values: BysantValue[] = []
  for (let at = 0; at < buf.length;) {
    const r = parseValue(buf, at, ctx, known, limits)
    if (r.ok === 'more') return { ok: false, reason: 'bysant.truncated' }
    if (r.ok === false) return r
    values.push(r.value)
    known = r.classes
    at = r.end
  }
  return { ok: true, values }
}
