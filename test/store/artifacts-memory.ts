// How much memory an artifact store holds while a large artifact streams in and out: the heap and the Buffers still
// reachable (after a forced collection) at checkpoints along the way, above what was reachable before.
import { createHash, randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { ArtifactInfo, ArtifactStore } from '../../core/ports/artifacts.js'

setFlagsFromString('--expose-gc')
// A context made after the flag gets the gc function; the process's own global did not.
const gc = runInNewContext('gc') as () => void

const PIECE = 64 * 1024
const CHECK_EVERY = 2 * 1024 * 1024

function reachable (): number {
  // Twice: the Buffers a first collection finds dead are still counted until a second one (measured on PostgreSQL's
  // driver: 22 MB of them after one, none after two).
  gc()
  gc()
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}

/** `total` bytes made as they are read: one random block, each piece stamped with its number (no two alike). */
function generated (total: number, onPiece: (at: number) => void): { stream: Readable, sha256: () => string } {
  const block = randomBytes(PIECE)
  const hash = createHash('sha256')
  let at = 0
  const stream = new Readable({
    read () {
      if (at >= total) { this.push(null); return }
      const piece = Buffer.from(block.subarray(0, Math.min(PIECE, total - at)))
      piece.writeUInt32BE(at / PIECE, 0)
      hash.update(piece)
      at += piece.length
      onPiece(at)
      this.push(piece)
    }
  })
  return { stream, sha256: () => hash.digest('hex') }
}

export interface StreamedMemory {
  info: ArtifactInfo
  expectedSha256: string
  readSha256: string
  /** The most reachable memory grew by while the artifact was put, and while it was read back. */
  putGrowth: number
  openGrowth: number
}

export async function streamedMemory (store: ArtifactStore, total: number): Promise<StreamedMemory> {
  let base = reachable()
  let peak = base
  let next = CHECK_EVERY
  const checkpoint = (at: number): void => {
    if (at < next) return
    next += CHECK_EVERY
    peak = Math.max(peak, reachable())
  }
  const src = generated(total, checkpoint)
  const info = await store.put(src.stream)
  const putGrowth = peak - base
  base = reachable()
  peak = base
  next = CHECK_EVERY
  const read = createHash('sha256')
  let got = 0
  for await (const piece of await store.open(info.key)) {
    read.update(piece as Buffer)
    got += (piece as Buffer).length
    checkpoint(got)
  }
  return { info, expectedSha256: src.sha256(), readSha256: read.digest('hex'), putGrowth, openGrowth: peak - base }
}
