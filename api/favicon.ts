// The icon browsers ask for on every page of the service (console, sign-in page, API docs): without it each page
// load logged a 404. A 32×32 ICO drawn here, so that the repository holds no binary: a disc in the console's accent
// colour with three signal bars, uncompressed 32-bit pixels (the BMP form every browser reads).
import type { FastifyInstance } from 'fastify'

const SIZE = 32
const ACCENT = [0xb0, 0x6c, 0x2b] as const // #2b6cb0 as B, G, R
const WHITE = [0xff, 0xff, 0xff] as const

/** The colour of a pixel (x right, y down), or null for transparent. */
function pixel (x: number, y: number): readonly [number, number, number] | null {
  const c = (SIZE - 1) / 2
  if ((x - c) ** 2 + (y - c) ** 2 > (SIZE / 2) ** 2) return null
  // Three bars of rising height, as a signal indicator: columns 9-12, 14-17, 19-22, bottoms at row 23.
  const bars: Array<[number, number]> = [[9, 18], [14, 13], [19, 8]]
  for (const [left, top] of bars) if (x >= left && x < left + 4 && y >= top && y <= 23) return WHITE
  return ACCENT
}

function drawIco (): Buffer {
  const header = Buffer.alloc(6)
  header.writeUInt16LE(1, 2) // type: icon
  header.writeUInt16LE(1, 4) // one image
  const info = Buffer.alloc(40)
  info.writeUInt32LE(40, 0)
  info.writeInt32LE(SIZE, 4)
  info.writeInt32LE(SIZE * 2, 8) // ICO bitmaps count the AND mask's rows in the height
  info.writeUInt16LE(1, 12)
  info.writeUInt16LE(32, 14)
  const pixels = Buffer.alloc(SIZE * SIZE * 4)
  for (let row = 0; row < SIZE; row++) {
    const y = SIZE - 1 - row // bottom-up
    for (let x = 0; x < SIZE; x++) {
      const p = pixel(x, y)
      if (p !== null) pixels.set([...p, 0xff], (row * SIZE + x) * 4)
    }
  }
  const mask = Buffer.alloc(SIZE * (SIZE / 8)) // all zero: the alpha channel decides
  const image = Buffer.concat([info, pixels, mask])
  const entry = Buffer.alloc(16)
  entry.writeUInt8(SIZE, 0)
  entry.writeUInt8(SIZE, 1)
  entry.writeUInt16LE(1, 4)
  entry.writeUInt16LE(32, 6)
  entry.writeUInt32LE(image.length, 8)
  entry.writeUInt32LE(header.length + entry.length, 12)
  return Buffer.concat([header, entry, image])
}

export const FAVICON = drawIco()

/** GET /favicon.ico: open, cached for a day. */
export default async function faviconRoute (app: FastifyInstance): Promise<void> {
  app.get('/favicon.ico', { schema: { hide: true }, config: { public: true } }, async (_req, reply) =>
    await reply.type('image/x-icon').header('cache-control', 'public, max-age=86400').send(FAVICON))
}
