// Our UDP binding as a CoAP server, with libcoap's coap-client-notls as the client: a GET (CON and NON), a POST body
// sent block-wise (Block1, -b 64) reassembled before the handler, a large response served block-wise (Block2, with
// and without a requested size), and an observation receiving NON and CON notifications.
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { CoapCode, OptionNumber, uriPathOf, withOption, type RequestHandler } from '../../../protocols/coap/index.js'
import { listenUdp, type UdpCoap } from '../../../protocols/coap/udp.js'
import { coapClient, startClient } from './libcoap.js'

const big = Buffer.from(Array.from({ length: 3000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('') + '<end>')
const uploads: Buffer[] = []
let registered: (r: { peer: string, token: Buffer }) => void = () => {}

const handler: RequestHandler = (req, peer) => {
  const path = uriPathOf(req)
  if (path === '/big') return { code: CoapCode.Content, payload: big }
  if (path === '/upload') {
    uploads.push(Buffer.from(req.payload))
    return { code: CoapCode.Changed, payload: `got ${req.payload.length}` }
  }
  if (path === '/obs') {
    registered({ peer, token: Buffer.from(req.token) })
    return { code: CoapCode.Content, options: withOption([], OptionNumber.Observe, 0), payload: 'n0' }
  }
  return { code: CoapCode.Content, payload: `hello ${path}` }
}

let server: UdpCoap
let folder: string
beforeAll(async () => {
  server = await listenUdp({ address: '127.0.0.1', handler })
  folder = await mkdtemp(join(tmpdir(), 'coap-'))
})
afterAll(async () => {
  await server?.close()
  await rm(folder, { recursive: true, force: true })
})

const url = (path: string): string => `coap://127.0.0.1:${server.port}${path}`

describe('coap-client-notls against our UDP endpoint', () => {
  it('gets an answer to a GET, confirmable or not', async () => {
    expect((await coapClient(['-m', 'get', url('/a/b')])).stdout).toBe('hello /a/b\n')
    expect((await coapClient(['-m', 'get', '-N', url('/non')])).stdout).toBe('hello /non\n')
    expect(server.endpoint.counters).toMatchObject({ malformed: 0, internalErrors: 0, refused: {} })
  })

  it('sends a POST body in 64-byte blocks (Block1) that reaches the handler whole', async () => {
    const body = randomBytes(3000)
    const file = join(folder, 'body.bin')
    await writeFile(file, body)
    const before = server.endpoint.counters.received
    const { stdout } = await coapClient(['-m', 'post', '-b', '64', '-f', file, url('/upload')])
    expect(stdout.trim()).toBe('got 3000')
    expect(uploads).toEqual([body])
    expect(server.endpoint.counters.received - before).toBe(Math.ceil(3000 / 64))
  })

  it('gets a large response served block by block (Block2), at our size or at the one it asks', async () => {
    const before = server.endpoint.counters.sent
    expect((await coapClient(['-m', 'get', url('/big')])).stdout).toBe(`${big.toString()}\n`)
    expect(server.endpoint.counters.sent - before).toBe(Math.ceil(big.length / 1024))
    const asked = server.endpoint.counters.sent
    expect((await coapClient(['-m', 'get', '-b', '64', url('/big')])).stdout).toBe(`${big.toString()}\n`)
    expect(server.endpoint.counters.sent - asked).toBe(Math.ceil(big.length / 64))
  })

  it('observes a resource: the first answer, then NON and CON notifications in order', async () => {
    const registration = new Promise<{ peer: string, token: Buffer }>((resolve) => { registered = resolve })
    const client = startClient(['-m', 'get', '-s', '60', '-w', url('/obs')])
    onTestFinished(async () => { await client.stop() })
    const { peer, token } = await registration
    await client.printed('n0\n')
    expect(server.endpoint.servedObservers()).toMatchObject([{ peer, path: '/obs' }])
    const outcomes = []
    for (const [n, confirmable] of [[1, false], [2, true], [3, false]] as const) {
      outcomes.push(await server.endpoint.notify(peer, token, { code: CoapCode.Content, payload: `n${n}` }, { confirmable }))
    }
    await client.printed('n3\n')
    expect(outcomes).toEqual(['sent', 'acked', 'sent'])
    expect(client.output().split('\n').filter((l) => l !== '')).toEqual(['n0', 'n1', 'n2', 'n3'])
  })
})
