// The Range and conditional headers of downloads (RFC 9110 §13-14), as docs/packages.md#downloads describes them:
// one byte range answers 206, a range past the end 416; a header the service does not serve by (another unit, bad
// syntax, several ranges) is ignored and the whole body answers 200, as the RFC lets a server do.
import type { ByteRange } from '../../core/ports/artifacts.js'

export type RangeAnswer =
  | { kind: 'whole' }
  | { kind: 'partial', range: ByteRange }
  | { kind: 'unsatisfiable' }

const SPEC = /^(\d*)-(\d*)$/

/** What a GET with this Range header answers for an artifact of `size` bytes. */
export function rangeOf (header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'whole' }
  const m = /^bytes=(.*)$/i.exec(header.trim())
  if (m === null) return { kind: 'whole' }
  const specs = (m[1] ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')
  if (specs.length !== 1) return { kind: 'whole' }
  const [, first = '', last = ''] = SPEC.exec(specs[0] ?? '') ?? []
  if (first === '' && last === '') return { kind: 'whole' } // no match, or a bare "-"
  // Digits past 2^53 are as good as infinite here: a first byte beyond any artifact, a last one clamped to its end.
  if (first === '') {
    const suffix = Number(last)
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' }
    return { kind: 'partial', range: { start: Math.max(0, size - suffix), end: size - 1 } }
  }
  const start = Number(first)
  if (last !== '' && Number(last) < start) return { kind: 'whole' } // invalid: the header is ignored
  if (start >= size) return { kind: 'unsatisfiable' }
  return { kind: 'partial', range: { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) } }
}

/** Whether an If-None-Match list names this entity tag (weak comparison, as the RFC asks for it). */
export function noneMatch (header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  if (header.trim() === '*') return true
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)
}

/** Whether a Range may be honoured under If-Range: only when it names this very entity tag (strong comparison). */
export function rangeStillValid (header: string | undefined, etag: string): boolean {
  return header === undefined || header.trim() === etag
}
