// Tokens from the system CSPRNG, drawn 4 KiB at a time: crypto.randomBytes(8) per request was a quarter of an
// in-memory request's CPU time. The bytes are the same CSPRNG output, only fetched in batches.
import { randomBytes } from 'node:crypto'

export function randomPool (batch = 4096): (n: number) => Buffer {
  let pool = Buffer.alloc(0)
  let offset = 0
  return (n) => {
    if (offset + n > pool.length) {
      pool = randomBytes(Math.max(batch, n))
      offset = 0
    }
    // A copy, so that a token kept (an observation's) does not keep the whole batch alive.
    const out = Buffer.from(pool.subarray(offset, offset + n))
    offset += n
    return out
  }
}
