// A release under the API's admission control (api/plugins/overload.ts, docs/packages.md#release-and-publish): the
// package takes a place only once its body is read, so other API requests go on while a slow client sends it. With
// one place and no line (OVERLOAD_MAX_IN_FLIGHT=1, OVERLOAD_MAX_QUEUE_MS=0) a request that found the place taken would
// be refused at once; the client here sends part of the package and holds the rest until the test lets it go.
import { request, type ClientRequest, type IncomingMessage } from 'node:http'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { uniq } from '../../helpers/factories.js'
import { eventually } from '../../helpers/eventually.js'
import { applicationsOfType, binaryBytes, finished, greenhousePackage } from './release-helpers.js'

let stack: Stack

beforeAll(async () => {
  stack = await startStack({
    listen: true,
    env: { OVERLOAD_MAX_IN_FLIGHT: '1', OVERLOAD_MAX_QUEUE_MS: '0', OVERLOAD_TARGET_MS: '0', OVERLOAD_RETRY_AFTER_S: '7' }
  })
}, 120_000)
afterAll(async () => { await stack?.close() })

/** Bytes of release bodies the service has written so far (DATA_DIR/tmp/releases). */
function received (): number {
  const dir = join(stack.config.DATA_DIR, 'tmp', 'releases')
  try {
    return readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0)
  } catch { return 0 }
}

/** A release whose body goes out in two parts: the first now, the rest when `rest()` is called. */
function slowRelease (body: Buffer, first: number): { rest: () => void, answer: Promise<{ status: number, json: any }> } {
  let req!: ClientRequest
  const answer = new Promise<{ status: number, json: any }>((resolve, reject) => {
    req = request(`${stack.httpUrl}/api/v1/operations/applications/release`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/zip', 'content-length': body.length }
    }, (res: IncomingMessage) => {
      let text = ''
      res.on('data', (c: Buffer) => { text += c.toString() })
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }) })
    })
    req.on('error', reject)
  })
  req.write(body.subarray(0, first))
  return { rest: () => { req.end(body.subarray(first)) }, answer }
}

const read = async (url: string): Promise<Response> => await fetch(`${stack.httpUrl}${url}`, { headers: { authorization: `Bearer ${stack.adminToken}` } })

describe('a release sent slowly', { timeout: 60_000 }, () => {
  it('holds no admission place while its body arrives: the other API requests are served meanwhile', async () => {
    const type = uniq('slow.upload')
    const body = await greenhousePackage(type, '1.0', binaryBytes(4 * 1024 * 1024, type))
    // Admission is on, with its one place.
    expect(await (await fetch(`${stack.httpUrl}/metrics`)).text()).toMatch(/^fleet_http_admission_limit 1$/m)
    const before = received()
    const upload = slowRelease(body, 1024 * 1024)
    // The service is reading the body: its first part is on disk.
    await eventually(() => received() - before >= 1024 * 1024, 15_000, 'the first part of the package received')
    try {
      for (let i = 0; i < 3; i++) {
        const res = await read('/api/v1/applications?size=1')
        expect(res.status, await res.text()).toBe(200)
      }
    } finally {
      upload.rest()
    }
    const { status, json } = await upload.answer
    expect(status).toBe(200)
    expect((await finished(stack, json.operation as string)).task.state).toBe('SUCCESS')
    expect(await applicationsOfType(stack, type)).toHaveLength(1)
  })
})
