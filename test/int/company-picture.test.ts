import { randomBytes } from 'node:crypto'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../helpers/stack.js'
import { companyUid, createUser, uniq, type TestUser } from '../helpers/factories.js'

// docs/api.md#users-and-companies (get and upload picture), §Limits (750 KB, 1024 px per side), §User (small fits in
// 32x32 and icon in 16x16, keeping the ratio) and §Errors row "company details, get picture, upload picture, ...".

let stack: Stack
beforeAll(async () => { stack = await startStack() })
afterAll(async () => { await stack.close() })

const VIEW_DETAILS = 'accountNetwork.company.viewDetails'

interface Fresh { uid: string, name: string, admin: TestUser }

async function freshCompany (): Promise<Fresh> {
  const name = uniq('Pictured')
  const admin = await createUser(stack, { company: name, administrator: true, rights: [VIEW_DETAILS] })
  return { uid: await companyUid(stack, name), name, admin }
}

function solid (width: number, height: number) {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } })
}

/** Pixels that do not compress: a PNG of w x h noise weighs about 3 bytes per pixel. */
async function noisePng (width: number, height: number): Promise<Buffer> {
  return await sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } }).png().toBuffer()
}

async function upload (c: Fresh, body: Buffer | string, contentType: string, token = c.admin.token) {
  return await stack.call(token, { method: 'POST', url: `/api/v1/company/${c.uid}/picture`, headers: { 'content-type': contentType }, payload: body })
}

async function picture (c: Fresh, name: string, token = c.admin.token) {
  return await stack.call(token, { method: 'GET', url: `/api/v1/company/${c.uid}/picture/${name}` })
}

function expectError (res: { statusCode: number, json: () => unknown }, code: string, status = 400): void {
  expect({ status: res.statusCode, body: res.json() }).toMatchObject({ status, body: { error: code, errorParameters: expect.any(Array) } })
}

/** The upload fails with `code` and leaves the company without a picture. */
async function expectRefused (c: Fresh, body: Buffer | string, contentType: string, code: string): Promise<void> {
  expectError(await upload(c, body, contentType), code)
  expectError(await picture(c, 'normal'), 'company.file.not.found')
  const details = await stack.call(c.admin.token, { method: 'GET', url: `/api/v1/company/${c.uid}` })
  expect(details.json().picture).toBeNull()
}

describe('POST /company/{uid}/picture then GET /company/{uid}/picture/{name}', () => {
  it('stores a JPEG: normal is the upload byte for byte, small and icon keep the ratio', async () => {
    const c = await freshCompany()
    const jpeg = await solid(200, 100).jpeg().toBuffer()
    const res = await upload(c, jpeg, 'image/jpeg')
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('')

    const normal = await picture(c, 'normal')
    expect(normal.statusCode).toBe(200)
    expect(normal.headers['content-type']).toBe('image/jpeg')
    expect(normal.rawPayload.equals(jpeg)).toBe(true)
    for (const [name, width, height] of [['small', 32, 16], ['icon', 16, 8]] as const) {
      const r = await picture(c, name)
      expect(r.statusCode).toBe(200)
      expect(r.headers['content-type']).toBe('image/jpeg')
      expect(await sharp(r.rawPayload).metadata()).toMatchObject({ format: 'jpeg', width, height })
    }

    const details = await stack.call(c.admin.token, { method: 'GET', url: `/api/v1/company/${c.uid}` })
    const base = `/api/v1/company/${c.uid}/picture/`
    expect(details.json().picture).toEqual({ normal: base + 'normal', small: base + 'small', icon: base + 'icon' })
    // the paths answered are the ones that serve the images
    expect((await stack.call(c.admin.token, { method: 'GET', url: details.json().picture.icon })).statusCode).toBe(200)
  })

  it('stores a PNG in portrait, and a new upload replaces the previous picture', async () => {
    const c = await freshCompany()
    expect((await upload(c, await solid(40, 40).jpeg().toBuffer(), 'image/jpeg')).statusCode).toBe(200)
    const png = await solid(300, 1024).png().toBuffer()
    const res = await upload(c, png, 'image/png')
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('')
    const normal = await picture(c, 'normal')
    expect(normal.headers['content-type']).toBe('image/png')
    expect(normal.rawPayload.equals(png)).toBe(true)
    const small = await picture(c, 'small')
    expect(small.headers['content-type']).toBe('image/png')
    expect(await sharp(small.rawPayload).metadata()).toMatchObject({ format: 'png', width: 9, height: 32 })
    expect(await sharp((await picture(c, 'icon')).rawPayload).metadata()).toMatchObject({ format: 'png', width: 5, height: 16 })
  })

  it('sizes the reductions of a JPEG by its EXIF orientation, as viewers show it', async () => {
    const c = await freshCompany()
    const rotated = await solid(200, 100).withMetadata({ orientation: 6 }).jpeg().toBuffer() // shown as 100x200
    expect((await upload(c, rotated, 'image/jpeg')).statusCode).toBe(200)
    expect(await sharp((await picture(c, 'small')).rawPayload).metadata()).toMatchObject({ width: 16, height: 32 })
  })

  it('lets a member holding viewDetails read the picture, and only an administrator upload one', async () => {
    const c = await freshCompany()
    const viewer = await createUser(stack, { company: c.name, rights: [VIEW_DETAILS] })
    const jpeg = await solid(20, 20).jpeg().toBuffer()
    expectError(await upload(c, jpeg, 'image/jpeg', viewer.token), 'missing.rights', 403)
    expectError(await picture(c, 'normal'), 'company.file.not.found')
    expect((await upload(c, jpeg, 'image/jpeg')).statusCode).toBe(200)
    expect((await picture(c, 'normal', viewer.token)).statusCode).toBe(200)
    const blind = await createUser(stack, { company: c.name, rights: [] })
    expectError(await picture(c, 'normal', blind.token), 'missing.rights', 403)
  })
})

describe('refused uploads', () => {
  it('refuses GIF and WebP images with invalid.format', async () => {
    const c = await freshCompany()
    await expectRefused(c, await solid(20, 20).gif().toBuffer(), 'image/png', 'invalid.format')
    await expectRefused(c, await solid(20, 20).webp().toBuffer(), 'image/jpeg', 'invalid.format')
  })

  it('refuses random bytes, a text body, an empty body and a truncated PNG with invalid.format', async () => {
    const c = await freshCompany()
    await expectRefused(c, randomBytes(2048), 'image/jpeg', 'invalid.format')
    await expectRefused(c, 'not a picture at all', 'text/plain', 'invalid.format')
    await expectRefused(c, '{"picture": "x"}', 'application/json', 'invalid.format')
    await expectRefused(c, Buffer.alloc(0), 'image/png', 'invalid.format')
    // the header announces a valid PNG, the pixels are missing
    const png = await noisePng(300, 300)
    await expectRefused(c, png.subarray(0, 4096), 'image/png', 'invalid.format')
  })

  it('refuses an image over 1024 px on one side with image.invalid.dimension', async () => {
    const c = await freshCompany()
    await expectRefused(c, await solid(1025, 10).png().toBuffer(), 'image/png', 'image.invalid.dimension')
    await expectRefused(c, await solid(10, 1025).jpeg().toBuffer(), 'image/jpeg', 'image.invalid.dimension')
    expect((await upload(c, await solid(1024, 1024).png().toBuffer(), 'image/png')).statusCode).toBe(200)
  })

  it('refuses a picture over 750 KB with file.too.large', async () => {
    const c = await freshCompany()
    const heavy = await noisePng(600, 600)
    expect(heavy.length).toBeGreaterThan(750 * 1024)
    await expectRefused(c, heavy, 'image/png', 'file.too.large')
    await expectRefused(c, Buffer.alloc(750 * 1024 + 1), 'image/jpeg', 'file.too.large')
    // far beyond any limit of the transport too
    await expectRefused(c, Buffer.alloc(12 * 1024 * 1024), 'image/jpeg', 'file.too.large')
  })

  it('accepts a picture of exactly 750 KB', async () => {
    const c = await freshCompany()
    const png = await solid(64, 64).png().toBuffer()
    // trailing bytes after IEND are ignored by decoders: the file weighs exactly the limit
    const exact = Buffer.concat([png, Buffer.alloc(750 * 1024 - png.length)])
    const res = await upload(c, exact, 'image/png')
    expect(res.statusCode).toBe(200)
    expect((await picture(c, 'normal')).rawPayload.length).toBe(750 * 1024)
  })
})

describe('GET /company/{uid}/picture/{name} errors', () => {
  it('answers company.file.not.found before any upload and for a size name that does not exist', async () => {
    const c = await freshCompany()
    for (const name of ['normal', 'small', 'icon']) expectError(await picture(c, name), 'company.file.not.found')
    expect((await upload(c, await solid(50, 50).png().toBuffer(), 'image/png')).statusCode).toBe(200)
    const res = await picture(c, 'large')
    expectError(res, 'company.file.not.found')
    expect(res.json().errorParameters).toEqual(['large'])
  })

  it('answers company.unknown for an unknown company and for a company the caller is not a member of', async () => {
    const c = await freshCompany()
    const other = await freshCompany()
    const png = await solid(10, 10).png().toBuffer()
    expect((await upload(other, png, 'image/png')).statusCode).toBe(200)
    for (const uid of ['no-such-company', other.uid]) {
      expectError(await stack.call(c.admin.token, { method: 'GET', url: `/api/v1/company/${uid}/picture/normal` }), 'company.unknown')
      const res = await stack.call(c.admin.token, { method: 'POST', url: `/api/v1/company/${uid}/picture`, headers: { 'content-type': 'image/png' }, payload: png })
      expectError(res, 'company.unknown')
    }
  })
})
