// GET /favicon.ico: every page of the service (console, sign-in page, API docs) asks for it; it answers a 32×32 icon
// without a token instead of a 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../helpers/stack.js'

let stack: Stack
beforeAll(async () => { stack = await startStack() })
afterAll(async () => { await stack.close() })

describe('GET /favicon.ico', () => {
  it('answers an ICO of one 32×32 32-bit image, open and cacheable', async () => {
    const res = await stack.call('', { method: 'GET', url: '/favicon.ico' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('image/x-icon')
    expect(res.headers['cache-control']).toBe('public, max-age=86400')
    const ico = res.rawPayload
    expect([...ico.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]) // reserved, type icon, one image
    expect([ico[6], ico[7], ico.readUInt16LE(12)]).toEqual([32, 32, 32]) // 32×32, 32 bits per pixel
    const offset = ico.readUInt32LE(18)
    expect(ico.readUInt32LE(14)).toBe(ico.length - offset) // the image runs to the end of the file
    expect(ico.readInt32LE(offset + 4)).toBe(32)
  })
})
