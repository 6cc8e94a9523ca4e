// The ArtifactStore contract (core/ports/artifacts.ts): what both stores (storage/artifacts/) answer alike, whatever
// keeps the bytes. artifacts.test.ts runs it on the files and on the database, on each engine.
import { createHash, randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ArtifactNotFound, ArtifactTooLarge, type ArtifactStore } from '../../core/ports/artifacts.js'
import { streamedMemory } from './artifacts-memory.js'

export interface ArtifactsHarness {
  store: ArtifactStore
  /** Bytes per chunk (the database) or per read (files): the contract's ranges cross that boundary. */
  chunk: number
  /** Copies of the artifact's bytes the store holds (files named by it, or its chunk rows over its chunk count). */
  copies (key: string): Promise<number>
  /** What puts left behind: partial files or chunks under a partial key. */
  leftovers (): Promise<number>
  close (): Promise<void>
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex')
const md5 = (b: Buffer): string => createHash('md5').update(b).digest('hex')

async function bytesOf (stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const p of stream) parts.push(p as Buffer)
  return Buffer.concat(parts)
}

/** A source in pieces of `piece` bytes (a ZIP entry or a request body arrives so). */
function source (bytes: Buffer, piece = 10_000): Readable {
  return Readable.from((function * () { for (let at = 0; at < bytes.length; at += piece) yield bytes.subarray(at, at + piece) })(), { objectMode: false })
}

export function describeArtifactsContract (name: string, open: () => Promise<ArtifactsHarness>): void {
  describe(`ArtifactStore: ${name}`, () => {
    let h: ArtifactsHarness
    beforeAll(async () => { h = await open() })
    afterAll(async () => { await h.close() })

    it('puts, stats, opens whole and by ranges across chunk boundaries, deletes', async () => {
      const bytes = randomBytes(h.chunk * 2 + 1234)
      const info = await h.store.put(source(bytes))
      expect(info).toEqual({ key: sha256(bytes), size: bytes.length, sha256: sha256(bytes), md5: md5(bytes) })
      expect(await h.store.stat(info.key)).toEqual({ size: bytes.length })
      expect((await bytesOf(await h.store.open(info.key))).equals(bytes)).toBe(true)
      const c = h.chunk
      const ranges: Array<[number, number]> = [[0, 0], [c - 1, c], [c - 10, 2 * c + 10], [5, c - 1], [c, 2 * c - 1], [bytes.length - 1, bytes.length - 1], [0, bytes.length - 1]]
      for (const [start, end] of ranges) {
        const got = await bytesOf(await h.store.open(info.key, { start, end }))
        expect(got.equals(bytes.subarray(start, end + 1)), `bytes ${start}-${end}`).toBe(true)
      }
      await expect(h.store.open(info.key, { start: bytes.length, end: bytes.length })).rejects.toBeInstanceOf(RangeError)
      await expect(h.store.open(info.key, { start: 10, end: 9 })).rejects.toBeInstanceOf(RangeError)
      await h.store.delete(info.key)
      expect(await h.store.stat(info.key)).toBeUndefined()
      await expect(h.store.open(info.key)).rejects.toBeInstanceOf(ArtifactNotFound)
      await h.store.delete(info.key) // nothing to delete: no error
      expect(await h.copies(info.key)).toBe(0)
    })

    it('names nothing by a key that is not a SHA-256: no path, no row', async () => {
      for (const key of ['../../etc/passwd', 'A'.repeat(64), '', `${'a'.repeat(64)}/x`]) {
        expect(await h.store.stat(key)).toBeUndefined()
        await expect(h.store.open(key)).rejects.toBeInstanceOf(ArtifactNotFound)
        await h.store.delete(key)
      }
    })

    it('keeps one copy of the same bytes put twice, one after the other and at once', async () => {
      const bytes = randomBytes(h.chunk + 77)
      const a = await h.store.put(source(bytes))
      const b = await h.store.put(source(bytes, 4096))
      expect(b).toEqual(a)
      const [c, d] = await Promise.all([h.store.put(source(bytes)), h.store.put(source(bytes, 333))])
      expect(c).toEqual(a)
      expect(d).toEqual(a)
      expect(await h.copies(a.key)).toBe(1)
      expect((await bytesOf(await h.store.open(a.key))).equals(bytes)).toBe(true)
      expect(await h.leftovers()).toBe(0)
    })

    it('stores an empty artifact', async () => {
      const info = await h.store.put(Readable.from([], { objectMode: false }))
      expect(info).toMatchObject({ size: 0, key: sha256(Buffer.alloc(0)), md5: md5(Buffer.alloc(0)) })
      expect(await h.store.stat(info.key)).toEqual({ size: 0 })
      expect((await bytesOf(await h.store.open(info.key))).length).toBe(0)
    })

    it('refuses past maxBytes and stores nothing; a source that fails stores nothing', async () => {
      const bytes = randomBytes(h.chunk * 2)
      const err: unknown = await h.store.put(source(bytes), { maxBytes: h.chunk + 1 }).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(ArtifactTooLarge)
      expect(err).toMatchObject({ maxBytes: h.chunk + 1 })
      expect(await h.store.stat(sha256(bytes))).toBeUndefined()
      const failing = Readable.from((function * () { yield bytes.subarray(0, h.chunk + 5); throw new Error('connection lost') })(), { objectMode: false })
      await expect(h.store.put(failing)).rejects.toThrow('connection lost')
      expect(await h.leftovers()).toBe(0)
      // Exactly maxBytes is within the limit.
      expect((await h.store.put(source(bytes), { maxBytes: bytes.length })).size).toBe(bytes.length)
    })

    it('streams a 20 MiB artifact in and out with bounded memory', async () => {
      const total = 20 * 1024 * 1024
      const { putGrowth, openGrowth, info, readSha256, expectedSha256 } = await streamedMemory(h.store, total)
      expect(info.size).toBe(total)
      expect(info.sha256).toBe(expectedSha256)
      expect(readSha256).toBe(expectedSha256)
      // Held whole, either direction would grow by the artifact's 20 MiB; streamed, by a chunk or two (measured: under
      // 1 MB on each store and engine).
      expect(putGrowth).toBeLessThan(4 * 1024 * 1024)
      expect(openGrowth).toBeLessThan(4 * 1024 * 1024)
      await h.store.delete(info.key)
    })
  })
}
