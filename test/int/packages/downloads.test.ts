// GET and HEAD /device/packages/<token> (docs/packages.md#downloads) over real sockets: what device agents do with a
// download link (a plain GET, HEAD for the size, Range to resume after a cut), what answers 404, and the bytes served.
import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../../bin/logger.js'
import type { ArtifactInfo } from '../../../core/ports/artifacts.js'
import type { DownloadLinkInput } from '../../../core/ports/package-downloads.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { allTasks, createSystems, postLabel, started, waitFinished } from '../../helpers/operations.js'
import { eventually } from '../../helpers/eventually.js'
import { cutAfter, fetchBytes, open, readAll, sha256 } from './downloads-client.js'

const logLines: string[] = []
const capture = { write (line: string): void { logLines.push(line) } }

let stack: Stack
let bytes: Buffer
let info: ArtifactInfo
let task: { systemUid: string, taskUid: string }

beforeAll(async () => {
  stack = await startStack({ listen: true, transports: [], log: createLogger({ LOG_LEVEL: 'debug', LOG_FORMAT: 'json' }, capture) })
  bytes = randomBytes(3 * 1024 * 1024 + 17)
  info = await stack.ctx.artifacts.put(Readable.from([bytes]))
  const [systemUid = ''] = await createSystems(stack, 1, 'download')
  const op = await started(postLabel(stack, { labels: { add: ['install'] }, criteria: { uids: [systemUid] } }))
  await waitFinished(stack, op)
  const [t] = await allTasks(stack, op)
  task = { systemUid, taskUid: t?.uid ?? '' }
})
afterAll(async () => { await stack.close() })

async function link (patch: Partial<DownloadLinkInput> = {}): Promise<string> {
  return await stack.ctx.services.downloads.link({ ...task, artifact: info.key, file: 'fw/app é 1.0.bin', size: info.size, expiresAt: Date.now() + 3_600_000, ...patch })
}

/** The stored row of a link's bytes and dates, once what was served is written. */
async function servedThrough (url: string): Promise<{ bytesServed: number, firstDownloadAt: number | null, lastDownloadAt: number | null }> {
  await stack.ctx.services.downloads.flush()
  const row = await stack.ctx.services.downloads.resolve(url.split('/').pop() ?? '')
  if (row === undefined) throw new Error('no such link')
  return row
}

describe('a download link', () => {
  it('is made at the listener\'s address and serves the binary to a plain GET, with its digest as ETag', async () => {
    const url = await link()
    expect(url).toMatch(new RegExp(`^${stack.httpUrl}/device/packages/[A-Za-z0-9_-]{43}$`))
    const a = await fetchBytes(url)
    expect(a.status).toBe(200)
    expect(sha256(a.body)).toBe(info.sha256)
    expect(a.headers).toMatchObject({
      'content-length': String(bytes.length),
      etag: `"${info.sha256}"`,
      'accept-ranges': 'bytes',
      'content-type': 'application/octet-stream',
      'content-disposition': 'attachment; filename="app _ 1.0.bin"; filename*=UTF-8\'\'app%20%C3%A9%201.0.bin'
    })
    // The token is stored only as its hash, and never written to the log.
    const token = url.split('/').pop() ?? ''
    const { rows } = await stack.db.query('SELECT * FROM package_downloads WHERE token_sha256 = $1 OR token_sha256 = $2', [token, sha256(Buffer.from(token))])
    expect(rows).toHaveLength(1)
    expect(JSON.stringify(rows[0])).not.toContain(token)
    expect(logLines.some((l) => l.includes('/device/packages/[redacted]'))).toBe(true)
    expect(logLines.join('\n')).not.toContain(token)
  })

  it('answers HEAD with the size and no body, Range ignored', async () => {
    const url = await link()
    for (const headers of [{}, { range: 'bytes=0-9' }] as Array<Record<string, string>>) {
      const a = await fetchBytes(url, headers, 'HEAD')
      expect(a.status).toBe(200)
      expect(a.headers['content-length']).toBe(String(bytes.length))
      expect(a.headers.etag).toBe(`"${info.sha256}"`)
      expect(a.body.length).toBe(0)
    }
  })

  it('resumes a download cut in the middle with Range: bytes=<n>- to the same SHA-256', async () => {
    const url = await link()
    const first = await cutAfter(url, 1024 * 1024)
    expect(first.length).toBeLessThan(bytes.length)
    const rest = await fetchBytes(url, { range: `bytes=${first.length}-` })
    expect(rest.status).toBe(206)
    expect(rest.headers['content-range']).toBe(`bytes ${first.length}-${bytes.length - 1}/${bytes.length}`)
    expect(rest.headers['content-length']).toBe(String(bytes.length - first.length))
    expect(sha256(Buffer.concat([first, rest.body]))).toBe(info.sha256)
  })

  it('serves bytes=<a>-<b> and a suffix as 206', async () => {
    const url = await link()
    const mid = await fetchBytes(url, { range: 'bytes=1000-299999' })
    expect(mid.status).toBe(206)
    expect(mid.headers['content-range']).toBe(`bytes 1000-299999/${bytes.length}`)
    expect(mid.body.equals(bytes.subarray(1000, 300000))).toBe(true)
    const tail = await fetchBytes(url, { range: 'bytes=-100' })
    expect(tail.status).toBe(206)
    expect(tail.body.equals(bytes.subarray(bytes.length - 100))).toBe(true)
  })

  it('answers several ranges or a malformed Range with the whole body, one past the end with 416, never 500', async () => {
    const url = await link()
    const n = bytes.length
    const cases: Array<[string, number, string?]> = [
      ['bytes=0-1,5-6', 200], ['bytes=abc', 200], ['items=0-5', 200], ['bytes=5-3', 200], ['bytes=', 200], ['bytes=-', 200],
      ['bytes=0-99999999999999999999999', 206, `bytes 0-${n - 1}/${n}`],
      [`bytes=${n - 1}-`, 206, `bytes ${n - 1}-${n - 1}/${n}`],
      [`bytes=${n}-`, 416, `bytes */${n}`], ['bytes=99999999999999999999-', 416, `bytes */${n}`], ['bytes=-0', 416, `bytes */${n}`]
    ]
    for (const [range, status, contentRange] of cases) {
      const a = await fetchBytes(url, { range })
      expect(a.status, range).toBe(status)
      expect(a.headers['content-range'], range).toBe(contentRange)
      if (status === 200) expect(sha256(a.body), range).toBe(info.sha256)
    }
  })

  it('answers If-None-Match with 304 and honours If-Range only for its own ETag', async () => {
    const url = await link()
    const etag = `"${info.sha256}"`
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const a = await fetchBytes(url, { 'if-none-match': tag })
      expect(a.status, tag).toBe(304)
      expect(a.body.length).toBe(0)
    }
    expect((await fetchBytes(url, { 'if-none-match': '"other"' })).status).toBe(200)
    expect((await fetchBytes(url, { range: 'bytes=0-9', 'if-range': etag })).status).toBe(206)
    for (const other of ['"other"', 'Wed, 21 Oct 2015 07:28:00 GMT']) {
      const a = await fetchBytes(url, { range: 'bytes=0-9', 'if-range': other })
      expect(a.status, other).toBe(200)
      expect(a.body.length).toBe(bytes.length)
    }
  })
})

describe('a link that is not valid', () => {
  it('answers 404 and serves nothing: unknown, malformed, expired, revoked, or its artifact deleted', async () => {
    const other = await stack.ctx.artifacts.put(Readable.from([randomBytes(1000)]))
    const expired = await link({ expiresAt: Date.now() - 1 })
    const revoked = await link()
    const gone = await link({ artifact: other.key, size: 1000 })
    await stack.ctx.services.downloads.revoke([task.taskUid])
    await stack.ctx.artifacts.delete(other.key)
    const base = `${stack.httpUrl}/device/packages/`
    for (const url of [`${base}${randomBytes(32).toString('base64url')}`, `${base}abc`, `${base}${'a'.repeat(42)}.`, expired, revoked, gone]) {
      for (const method of ['GET', 'HEAD']) {
        const a = await fetchBytes(url, { range: 'bytes=0-' }, method)
        expect(a.status, `${method} ${url}`).toBe(404)
        expect(a.headers.etag).toBeUndefined()
        if (method === 'GET') expect(JSON.parse(a.body.toString())).toEqual({ error: 'not.found', errorParameters: [] })
      }
    }
  })
})

describe('bytes served', () => {
  it('are stored per link, with the first and last download dates, and counted in the metrics', async () => {
    const before = Date.now()
    const url = await link()
    await fetchBytes(url)
    await fetchBytes(url, { range: 'bytes=0-99' })
    await fetchBytes(url, {}, 'HEAD')
    const row = await servedThrough(url)
    expect(row.bytesServed).toBe(bytes.length + 100)
    expect(row.firstDownloadAt).toBeGreaterThanOrEqual(before)
    expect(row.lastDownloadAt).toBeGreaterThanOrEqual(row.firstDownloadAt ?? Infinity)
    const metrics = (await stack.ctx.metrics.scrape()).body
    expect(Number(/^fleet_package_download_bytes_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(bytes.length + 100)
  })

  it('are written without a flush being asked, in batches', async () => {
    const url = await link()
    await fetchBytes(url, { range: 'bytes=0-9' })
    await eventually(async () => (await stack.ctx.services.downloads.resolve(url.split('/').pop() ?? ''))?.bytesServed === 10, 5000, 'the 10 bytes served stored')
  })
})

describe('a client that stops reading', () => {
  it('holds back only its own download: another completes meanwhile, and the paused one stops being read', async () => {
    const big = randomBytes(32 * 1024 * 1024)
    const bigInfo = await stack.ctx.artifacts.put(Readable.from([big]))
    const slow = await link({ artifact: bigInfo.key, size: big.length })
    const paused = await open(slow)
    paused.pause()
    const other = await fetchBytes(await link())
    expect(sha256(other.body)).toBe(info.sha256)
    // By the time the other download completed, the paused one was read only as far as its socket's buffers take.
    const held = (await servedThrough(slow)).bytesServed
    expect(held).toBeLessThan(big.length / 2)
    expect(sha256(await readAll(paused))).toBe(bigInfo.sha256)
  })
})

describe('with the artifacts in the database (ARTIFACT_STORE=database)', () => {
  let db: Stack
  beforeAll(async () => { db = await startStack({ listen: true, transports: [], env: { ARTIFACT_STORE: 'database' } }) })
  afterAll(async () => { await db.close() })

  it('serves the whole binary, a range across chunks, and a resumed cut download alike', async () => {
    const stored = await db.ctx.artifacts.put(Readable.from([bytes]))
    expect((await db.db.query('SELECT 1 FROM artifacts WHERE key = $1', [stored.key])).rows).toHaveLength(1)
    const [systemUid = ''] = await createSystems(db, 1, 'download-db')
    const op = await started(postLabel(db, { labels: { add: ['install'] }, criteria: { uids: [systemUid] } }))
    await waitFinished(db, op)
    const [t] = await allTasks(db, op)
    const url = await db.ctx.services.downloads.link({ systemUid, taskUid: t?.uid ?? '', artifact: stored.key, file: 'app.bin', size: stored.size, expiresAt: Date.now() + 60_000 })
    expect(sha256((await fetchBytes(url)).body)).toBe(info.sha256)
    const mid = await fetchBytes(url, { range: 'bytes=262000-800000' })
    expect(mid.status).toBe(206)
    expect(mid.body.equals(bytes.subarray(262000, 800001))).toBe(true)
    const first = await cutAfter(url, 600_000)
    const rest = await fetchBytes(url, { range: `bytes=${first.length}-` })
    expect(sha256(Buffer.concat([first, rest.body]))).toBe(info.sha256)
  })
})
