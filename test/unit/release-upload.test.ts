// receiveZip (core/services/applications-upload.ts): a package body is written to a file with backpressure; every
// wait for the file to drain leaves no listener behind, however many waits a large package makes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { receiveZip } from '../../core/services/applications-upload.js'

const dirs: string[] = []
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }) })

describe('receiveZip', () => {
  it('writes a 16 MiB body through many drain waits without a listener warning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'release-upload-'))
    dirs.push(dir)
    const chunk = Buffer.alloc(64 * 1024, 7)
    chunk.write('PK\x03\x04', 0, 'latin1')
    const chunks = Array.from({ length: 256 }, () => chunk)
    const warnings: string[] = []
    const onWarning = (w: Error): void => { warnings.push(w.name) }
    process.on('warning', onWarning)
    try {
      const got = await receiveZip(Readable.from(chunks), dir, 64 * 1024 * 1024)
      // Warnings are emitted on the next tick: let it turn once before looking.
      await new Promise<void>((resolve) => { setImmediate(resolve) })
      expect(got.refused).toBeUndefined()
      expect(got.size).toBe(16 * 1024 * 1024)
      expect(readFileSync(got.path).length).toBe(16 * 1024 * 1024)
      await got.discard()
    } finally {
      process.off('warning', onWarning)
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning')
  })
})
