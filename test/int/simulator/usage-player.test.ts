// The usage feed player (simulator/usage/player.ts) against a stand-in service: each file is one import whose
// operation it reads until FINISHED, and a file the service refuses is sent again at the next play, ahead of the
// new records, so the operator's feed loses nothing while the service is away.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { deviceIdentity } from '../../../simulator/devices/identity.js'
import { USAGE_IMPORT_PATH } from '../../../simulator/usage/sender.js'
import { startUsagePlayer } from '../../../simulator/usage/player.js'
import type { FeedRecord } from '../../../simulator/usage/feed.js'
import { eventually } from '../../helpers/devices.js'

let server: Server | undefined
afterEach(async () => { await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined)) })

interface Import { body: string, contentType: string | undefined }

/** Takes imports (refusing the first `refusals` with 400), answers each operation RUNNING once, then FINISHED with one failed row. */
async function serve (refusals: number): Promise<{ url: string, imports: Import[], reads: () => number }> {
  const imports: Import[] = []
  let reads = 0
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => { body += c.toString() })
    req.on('end', () => {
      res.setHeader('content-type', 'application/json')
      if (req.url === '/api/oauth/token') { res.end(JSON.stringify({ access_token: 'tok' })); return }
      if (req.headers.authorization !== 'Bearer tok') { res.statusCode = 401; res.end('{}'); return }
      if (req.method === 'POST' && req.url === USAGE_IMPORT_PATH) {
        imports.push({ body, contentType: req.headers['content-type'] })
        if (imports.length <= refusals) { res.statusCode = 400; res.end(JSON.stringify({ error: 'file.unreadable', errorParameters: [] })); return }
        res.end(JSON.stringify({ operation: `op${imports.length}` }))
        return
      }
      const op = /^\/api\/v1\/operations\/(op\d+)$/.exec(req.url ?? '')
      if (req.method === 'GET' && op !== null) {
        reads++
        const n = Number(op[1]?.slice(2)) - 1
        const rows = (imports[n]?.body.trimEnd().split('\n').length ?? 1) - 1
        const finished = reads % 2 === 0
        res.end(JSON.stringify({ uid: op[1], state: finished ? 'FINISHED' : 'IN_PROGRESS', total: rows, counters: [{ state: 'SUCCESS', count: finished ? rows - 1 : 0 }, { state: 'FAILURE', count: finished ? 1 : 0 }] }))
        return
      }
      res.statusCode = 404
      res.end('{}')
    })
  })
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, imports, reads: () => reads }
}

const subscribers = [1, 2].map((n) => { const id = deviceIdentity('play01', n); return { iccid: id.iccid, imei: id.imei, msisdn: id.mobileNumber } })
const rows = (csv: string): string[] => csv.trimEnd().split('\n').slice(1)

describe('usage feed player', () => {
  it('imports the history in files, follows each operation until FINISHED, and sends a refused file again at the next play', async () => {
    const svc = await serve(1)
    let now = Date.UTC(2026, 10, 1)
    const imported: Array<readonly FeedRecord[]> = []
    const player = startUsagePlayer({
      api: { url: svc.url, clientId: 'c', clientSecret: 's' },
      subscribers,
      seed: 5,
      periodMs: 3_600_000, // the test plays the second time by stopping the player
      historyMs: 12 * 3_600_000,
      profile: { eventsPerHour: 6 },
      limits: { maxRows: 40 },
      pollMs: 1,
      now: () => now,
      onImported: (records) => { imported.push(records) }
    })
    await eventually(async () => player.stats().plays === 1, 10_000, 'the first play')
    // The first play: its first file refused, nothing imported, every record held.
    const first = player.stats()
    expect(first).toMatchObject({ plays: 1, files: 0, records: 0, errors: 1 })
    expect(first.lastError).toContain('usage import refused (400)')
    expect(first.held).toBeGreaterThan(40)
    expect(svc.imports).toHaveLength(1)
    expect(svc.imports[0]?.contentType).toBe('text/csv')
    const refused = rows(svc.imports[0]?.body ?? '')
    expect(refused).toHaveLength(40)

    now += 3_600_000 // an hour of new traffic, played at the stop
    await player.stop()
    const s = player.stats()
    const files = svc.imports.slice(1)
    expect(files.length).toBeGreaterThan(1)
    expect(files.every((f) => rows(f.body).length <= 40)).toBe(true)
    // The held records first (the refused file's rows again), then the new hour's.
    expect(rows(files[0]?.body ?? '')).toEqual(refused)
    const sent = files.flatMap((f) => rows(f.body))
    expect(sent.length).toBeGreaterThan(first.held)
    expect(s).toMatchObject({ plays: 2, files: files.length, held: 0, errors: 1, failed: files.length, records: sent.length - files.length })
    expect(imported.flat()).toHaveLength(sent.length)
    expect(svc.reads()).toBe(2 * files.length) // each operation read until FINISHED
  })
})
