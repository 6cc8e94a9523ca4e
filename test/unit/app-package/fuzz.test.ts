// protocols/app-package: random bytes, and valid packages with bytes or model text mutated, never make openPackage
// throw: it answers a package or one of the release error codes (docs/packages.md#the-package), and a binary's
// stream fails only with a PackageError.
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RELEASE_ERRORS } from '../../../core/domain/application-package.js'
import { openPackage, PackageError } from '../../../protocols/app-package/index.js'
import { MQTT_MODEL } from './models.js'
import { tempFolder, zipOf } from './zips.js'

let temp: Awaited<ReturnType<typeof tempFolder>>
let valid: Buffer
beforeAll(async () => {
  temp = await tempFolder()
  valid = await zipOf([{ name: 'model.app', data: MQTT_MODEL }, { name: 'greenhouse-2.1.0.tar.gz', data: 'x'.repeat(3000) }, { name: 'notes.txt', data: 'stored', compress: false }])
})
afterAll(async () => { await temp.done() })

/** Opens the bytes as a package: a refusal must carry a release code and not be a failure the reader did not foresee. */
async function answers (bytes: Uint8Array): Promise<void> {
  const r = await openPackage(await temp.write(Buffer.from(bytes)))
  if (!r.ok) {
    expect(RELEASE_ERRORS).toContain(r.error.code)
    expect(r.error.message).not.toMatch(/^the package cannot be read/)
    return
  }
  try {
    for (const m of r.pkg.models) {
      for (const b of m.binaries) {
        try {
          for await (const chunk of await r.pkg.binary(b.file)) expect(chunk).toBeInstanceOf(Buffer)
        } catch (err) {
          expect(err).toBeInstanceOf(PackageError)
        }
      }
    }
  } finally {
    await r.pkg.close()
  }
}

const mutation = fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }), how: fc.constantFrom('set', 'insert', 'remove', 'truncate') })

function mutate (bytes: Buffer, { at, byte, how }: { at: number, byte: number, how: string }): Buffer {
  const i = at % bytes.length
  if (how === 'truncate') return bytes.subarray(0, i)
  if (how === 'remove') return Buffer.concat([bytes.subarray(0, i), bytes.subarray(i + 1)])
  return Buffer.concat([bytes.subarray(0, i), Buffer.from([byte]), bytes.subarray(how === 'set' ? i + 1 : i)])
}

describe('fuzz', () => {
  it('random bytes, with or without a ZIP signature', async () => {
    await fc.assert(fc.asyncProperty(fc.uint8Array({ maxLength: 400 }), fc.boolean(), async (bytes, signed) => {
      await answers(signed ? Buffer.concat([Buffer.from('PK\x03\x04'), bytes]) : bytes)
    }), { numRuns: 300 })
  })

  it('a valid package with bytes changed, inserted, removed or cut', async () => {
    await fc.assert(fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), async (mutations) => {
      await answers(mutations.reduce(mutate, valid))
    }), { numRuns: 400 })
  })

  it('a valid model with its text mutated, in a well-formed ZIP', async () => {
    const pieces = fc.constantFrom('<', '>', '/', '"', '=', '&', ':', '.', ' ', '\n', 'é', '<node path="x">', '</asset>', '<include><file name="model.app"/></include>', 'type', 'xmlns')
    await fc.assert(fc.asyncProperty(fc.array(fc.record({ at: fc.nat(), cut: fc.nat({ max: 20 }), piece: pieces }), { minLength: 1, maxLength: 5 }), async (edits) => {
      const text = edits.reduce((t, e) => { const i = e.at % t.length; return t.slice(0, i) + e.piece + t.slice(i + e.cut) }, MQTT_MODEL)
      await answers(await zipOf([{ name: 'model.app', data: text }, { name: 'greenhouse-2.1.0.tar.gz', data: 'bin' }]))
    }), { numRuns: 400 })
  })
})
