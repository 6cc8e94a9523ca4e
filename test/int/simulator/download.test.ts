// The simulated devices' downloader (simulator/devices/download.ts; simulator/README.md "Software") against a local
// server: HEAD then GET hashed as the bytes come, a cut resumed with Range under If-Range, a server that ignores Range
// makes it start over, the tries run out on a link that keeps failing, its own cuts (the cut rate), and the limiter
// holding a fleet's downloads to its slots.
import { randomBytes } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { createLimiter, download } from '../../../simulator/devices/download.js'
import { eventually } from '../../helpers/eventually.js'
import { md5, packageServer, sha256, type PackageServer } from './package-server.js'

const bytes = randomBytes(3 * 1024 * 1024 + 17)
const servers: PackageServer[] = []
afterEach(async () => { for (const s of servers.splice(0)) await s.close() })

async function serve (o: Parameters<typeof packageServer>[1] = {}): Promise<PackageServer> {
  const s = await packageServer(bytes, o)
  servers.push(s)
  return s
}

describe('download', () => {
  it('HEAD, then one GET; the digests and the size are the bytes\' and the tag is kept', async () => {
    const s = await serve()
    const got = await download(s.url, { retryDelayMs: 0 })
    expect(got).toEqual({ ok: true, size: bytes.length, md5: md5(bytes), sha256: sha256(bytes), etag: `"${sha256(bytes)}"`, requests: 2, resumed: 0 })
    expect(s.requests.map((r) => r.method)).toEqual(['HEAD', 'GET'])
    expect(s.requests[1]?.range).toBeUndefined()
  })

  it('a connection cut mid-body is resumed with Range from the byte it reached, under If-Range', async () => {
    const s = await serve({ cutGets: 2 })
    const got = await download(s.url, { retryDelayMs: 0 })
    expect(got).toMatchObject({ ok: true, size: bytes.length, sha256: sha256(bytes), md5: md5(bytes), requests: 4, resumed: 2 })
    const gets = s.requests.filter((r) => r.method === 'GET')
    const half = Math.floor(bytes.length / 2)
    expect(gets.map((r) => r.range)).toEqual([undefined, `bytes=${half}-`, `bytes=${half + Math.floor((bytes.length - half) / 2)}-`])
    expect(gets[1]?.ifRange).toBe(`"${sha256(bytes)}"`)
  })

  it('a server that answers the whole body again (200) after a cut: the hashes start over and still match', async () => {
    const s = await serve({ cutGets: 1, ignoreRange: true })
    const got = await download(s.url, { retryDelayMs: 0 })
    expect(got).toMatchObject({ ok: true, size: bytes.length, sha256: sha256(bytes), resumed: 0 })
  })

  it('a link that keeps failing: it gives up after its tries, saying what happened last', async () => {
    const cut = await serve({ cutGets: 100 })
    const gone = await serve({ status: 404 })
    const a = await download(cut.url, { tries: 3, retryDelayMs: 0 })
    expect(a).toMatchObject({ ok: false, requests: 4 })
    expect(a.ok ? '' : a.message).toMatch(/^download failed after 3 tries: /)
    expect(cut.requests.filter((r) => r.method === 'GET')).toHaveLength(3)
    const b = await download(gone.url, { tries: 2, retryDelayMs: 0 })
    expect(b).toEqual({ ok: false, message: 'download failed after 2 tries: HEAD answered 404', requests: 2 })
  })

  it('the cut rate: the device cuts its own GET at a random byte, then resumes from there', async () => {
    const s = await serve()
    // The first GET is cut at a third of the package (draws: cut? yes, where? 1/3), the second is not.
    const draws = [0, 1 / 3, 0.99]
    const got = await download(s.url, { retryDelayMs: 0, cutRate: 0.5, random: () => draws.shift() ?? 0.99 })
    expect(got).toMatchObject({ ok: true, sha256: sha256(bytes), resumed: 1 })
    const at = 1 + Math.floor((bytes.length - 1) / 3)
    expect(s.requests.filter((r) => r.method === 'GET').map((r) => r.range)).toEqual([undefined, `bytes=${at}-`])
  })

  it('a limiter of 2 slots: 6 downloads at once never have more than 2 requests at the server', async () => {
    let release = (): void => {}
    const s = await serve({ hold: new Promise((resolve) => { release = resolve }) })
    const limiter = createLimiter(2)
    const all = Promise.all(Array.from({ length: 6 }, async () => await download(s.url, { limiter, retryDelayMs: 0 })))
    await eventually(() => s.inFlight === 2, 5000, 'two GETs held at the server')
    expect(limiter.waiting).toBe(4)
    release()
    const results = await all
    expect(results.every((r) => r.ok && r.sha256 === sha256(bytes))).toBe(true)
    expect(s.maxInFlight).toBe(2)
    expect(limiter.active).toBe(0)
  })
})
