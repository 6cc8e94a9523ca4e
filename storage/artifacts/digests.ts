// What both artifact stores compute while the bytes arrive (core/ports/artifacts.ts): the size, the SHA-256 that is
// the key and the MD5 the Mihini agent checks (docs/packages.md#downloads), in one pass, refusing past the limit.
import { createHash } from 'node:crypto'
import { ArtifactTooLarge, type ArtifactInfo } from '../../core/ports/artifacts.js'

/** Keys are lower-case hex SHA-256: anything else names no artifact (and never reaches a path or a query). */
export const ARTIFACT_KEY = /^[0-9a-f]{64}$/

export interface Digests {
  /** Counts and hashes one piece; throws ArtifactTooLarge once the total passes the limit. */
  add (piece: Buffer): void
  /** The artifact's info once every piece was added. */
  done (): ArtifactInfo
}

export function createDigests (maxBytes = Number.POSITIVE_INFINITY): Digests {
  const sha256 = createHash('sha256')
  const md5 = createHash('md5')
  let size = 0
  return {
    add (piece) {
      size += piece.length
      if (size > maxBytes) throw new ArtifactTooLarge(maxBytes)
      sha256.update(piece)
      md5.update(piece)
    },
    done () {
      const key = sha256.digest('hex')
      return { key, size, sha256: key, md5: md5.digest('hex') }
    }
  }
}

/** A range the artifact's bytes hold, or a RangeError: the stores serve no bytes past the end. */
export function checkRange (size: number, range: { start: number, end: number }): void {
  const { start, end } = range
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start || end >= size) {
    throw new RangeError(`bytes ${start}-${end} are not within an artifact of ${size} bytes`)
  }
}

/** Bytes as Buffers whatever a source yields (strings in tests, Uint8Arrays from web streams). */
export function asBuffer (piece: unknown): Buffer {
  if (Buffer.isBuffer(piece)) return piece
  if (piece instanceof Uint8Array) return Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength)
  if (typeof piece === 'string') return Buffer.from(piece)
  throw new TypeError('an artifact source yields bytes')
}
