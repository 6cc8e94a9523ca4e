// protocols/app-package: sizes (docs/packages.md#the-package). Declared sizes over a limit are refused before anything
// is inflated; a header that lies is caught while inflating, after at most the declared bytes, so a ZIP bomb (100 MiB
// of zeros in 100 KiB) costs no more memory than its declared size.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_PACKAGE_LIMITS, openPackage, PackageError, type PackageLimits } from '../../../protocols/app-package/index.js'
import { model } from './models.js'
import { lyingSize, tempFolder, zeros, zipOf } from './zips.js'

let temp: Awaited<ReturnType<typeof tempFolder>>
let bomb: Buffer
beforeAll(async () => {
  temp = await tempFolder()
  bomb = await zipOf([{ name: 'm.app', data: model('<binaries><binary file="zeros.bin"/></binaries>') }, { name: 'zeros.bin', data: zeros(100) }])
})
afterAll(async () => { await temp.done() })

const MiB = 1024 * 1024
const limits: PackageLimits = { maxEntries: 10, maxModelBytes: 64 * 1024, maxTotalBytes: 10 * MiB, maxBinaryBytes: 10 * MiB }

describe('openPackage: limits', () => {
  it('a ZIP bomb: 100 MiB of zeros in a 100 KiB ZIP, with 10 MiB allowed, refused by its declared size', async () => {
    expect(bomb.length).toBeLessThan(200 * 1024)
    const r = await openPackage(await temp.write(bomb), limits)
    expect(r).toEqual({ ok: false, error: { code: 'application.release.too.large', message: expect.stringContaining('over 10485760 bytes') } })
    const binary = await openPackage(await temp.write(bomb), { ...limits, maxTotalBytes: 1000 * MiB })
    expect(binary).toEqual({ ok: false, error: { code: 'application.release.too.large', message: 'binary "zeros.bin" declares 104857600 bytes, over the limit of 10485760' } })
  })

  it('a binary whose header lies: openPackage answers without inflating it, its stream fails past the declared size', async () => {
    const r = await openPackage(await temp.write(lyingSize(bomb, 'zeros.bin', 1000)), limits)
    if (!r.ok) throw new Error(r.error.message)
    let got = 0
    const error = await (async () => {
      try {
        for await (const c of await r.pkg.binary('zeros.bin')) got += (c as Buffer).length
      } catch (err) { return err }
    })()
    await r.pkg.close()
    expect(error).toBeInstanceOf(PackageError)
    expect(error).toMatchObject({ code: 'application.release.too.large', message: 'binary "zeros.bin" inflates past the 1000 bytes it declares' })
    expect(got).toBeLessThanOrEqual(1000)
  })

  it('a model whose header lies (a bomb in a model): refused while reading it', async () => {
    const zip = await zipOf([{ name: 'm.app', data: zeros(20) }])
    const r = await openPackage(await temp.write(lyingSize(zip, 'm.app', 2000)), limits)
    expect(r).toEqual({ ok: false, error: { code: 'application.release.too.large', message: 'model "m.app" inflates past the 2000 bytes it declares' } })
  })

  it('a model or a fragment over the model limit, more entries than allowed', async () => {
    const big = model(`<!-- ${'x'.repeat(70 * 1024)} -->`)
    expect(await openPackage(await temp.write(await zipOf([{ name: 'm.app', data: big }])), limits))
      .toEqual({ ok: false, error: { code: 'application.release.too.large', message: expect.stringMatching(/^entry "m.app" declares \d+ bytes, over the 65536 a model may hold$/) } })
    expect(await openPackage(await temp.write(await zipOf([{ name: 'm.app', data: model('') }, { name: 'parts/data.cp', data: big }])), limits))
      .toMatchObject({ ok: false, error: { code: 'application.release.too.large', message: expect.stringContaining('parts/data.cp') } })
    const many = Array.from({ length: 11 }, (_, i) => ({ name: `f${i}.txt`, data: '' }))
    expect(await openPackage(await temp.write(await zipOf([{ name: 'm.app', data: model('') }, ...many])), limits))
      .toEqual({ ok: false, error: { code: 'application.release.too.large', message: 'the ZIP holds 12 entries, over the limit of 10' } })
  })

  it('the defaults leave room for a gateway image', () => {
    expect(DEFAULT_PACKAGE_LIMITS.maxBinaryBytes).toBeGreaterThanOrEqual(512 * MiB)
    expect(DEFAULT_PACKAGE_LIMITS.maxTotalBytes).toBeGreaterThanOrEqual(DEFAULT_PACKAGE_LIMITS.maxBinaryBytes)
  })

  it('binary() answers only the binaries models declare, and nothing once closed', async () => {
    const r = await openPackage(await temp.write(await zipOf([{ name: 'm.app', data: model('<binaries><binary file="a.bin"/></binaries>') }, { name: 'a.bin', data: 'a' }, { name: 'other.bin', data: 'o' }])))
    if (!r.ok) throw new Error(r.error.message)
    await expect(r.pkg.binary('other.bin')).rejects.toMatchObject({ code: 'application.release.missing.binary' })
    await r.pkg.close()
    await expect(r.pkg.binary('a.bin')).rejects.toMatchObject({ code: 'application.release.invalid.zip', message: 'the package is closed' })
  })
})
