import { createHmac } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createHttpCallbackSender } from '../../../storage/notify/http-callback.js'
import { isForbiddenAddress } from '../../../core/domain/network-addresses.js'

interface Received { method: string, url: string, headers: IncomingHttpHeaders, body: string }

// A real callback receiver on 127.0.0.1:0. `answer` decides each reply; 'hang' never replies.
let server: Server
let port: number
let received: Received[]
let answer: number | 'hang'

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      if (answer === 'hang') return
      res.writeHead(answer, answer === 302 ? { location: `http://127.0.0.1:${port}/elsewhere` } : {})
      res.end('ignored')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  server.closeAllConnections()
  server.close()
  await once(server, 'close')
})
beforeEach(() => {
  received = []
  answer = 200
})

const body = JSON.stringify({ name: 'event.operation.state.changed', date: 1, content: { operation: 'abc', state: 'FINISHED' } })
const open = createHttpCallbackSender({ allowPrivate: true, timeoutMs: 5000 })

describe('HTTP callback delivery', () => {
  it('POSTs the JSON body, turns URL credentials into Basic auth and signs with the secret', async () => {
    const sender = createHttpCallbackSender({ allowPrivate: true, timeoutMs: 5000, secret: 'sekret' })
    const result = await sender.send(`http://user:pa%3Ass@127.0.0.1:${port}/hook/path?x=1#frag`, body)
    expect(result).toEqual({ outcome: 'delivered', status: 200 })
    expect(received).toHaveLength(1)
    const [req] = received as [Received]
    expect(req.method).toBe('POST')
    expect(req.url).toBe('/hook/path?x=1')
    expect(req.headers['content-type']).toBe('application/json')
    expect(JSON.parse(req.body)).toEqual(JSON.parse(body))
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from('user:pa:ss').toString('base64')}`)
    expect(req.headers.host).toBe(`127.0.0.1:${port}`)
    const expected = createHmac('sha256', 'sekret').update(req.body).digest('hex')
    expect(req.headers['x-fleet-signature']).toBe(`sha256=${expected}`)
  })

  it('sends neither signature nor authorization when there is no secret and no credentials', async () => {
    const result = await open.send(`http://127.0.0.1:${port}/hook`, body)
    expect(result.outcome).toBe('delivered')
    expect(received[0]?.headers).not.toHaveProperty('x-fleet-signature')
    expect(received[0]?.headers).not.toHaveProperty('authorization')
  })

  it('treats any 2xx as delivered', async () => {
    answer = 204
    expect(await open.send(`http://127.0.0.1:${port}/`, body)).toEqual({ outcome: 'delivered', status: 204 })
  })

  it.each([500, 503, 429, 404, 400])('answers %i → retryable', async (status) => {
    answer = status
    expect(await open.send(`http://127.0.0.1:${port}/`, body)).toMatchObject({ outcome: 'retryable', status })
  })

  it('does not follow a redirect (retryable, one request only)', async () => {
    answer = 302
    expect(await open.send(`http://127.0.0.1:${port}/`, body)).toMatchObject({ outcome: 'retryable', status: 302 })
    expect(received.map((r) => r.url)).toEqual(['/'])
  })

  it('gives up a receiver that never answers at the timeout (retryable)', async () => {
    answer = 'hang'
    const sender = createHttpCallbackSender({ allowPrivate: true, timeoutMs: 300 })
    const started = Date.now()
    const result = await sender.send(`http://127.0.0.1:${port}/slow`, body)
    expect(result).toEqual({ outcome: 'retryable', reason: 'timeout' })
    expect(Date.now() - started).toBeLessThan(5000)
    expect(received).toHaveLength(1)
  })

  it('reports a closed port as retryable', async () => {
    const closed = createServer()
    closed.listen(0, '127.0.0.1')
    await once(closed, 'listening')
    const closedPort = (closed.address() as AddressInfo).port
    closed.close()
    await once(closed, 'close')
    expect(await open.send(`http://127.0.0.1:${closedPort}/`, body)).toMatchObject({ outcome: 'retryable', reason: 'ECONNREFUSED' })
  })
})

describe('refused callback URLs', () => {
  const strict = createHttpCallbackSender({ allowPrivate: false, timeoutMs: 5000 })

  it.each([
    '127.0.0.1', 'localhost', '10.0.0.1', '[::1]', '169.254.169.254', '0.0.0.0', '172.16.5.4', '192.168.1.1',
    '100.64.0.1', '[fd00::1]', '[fe80::1]', '[::ffff:127.0.0.1]', '[::ffff:a9fe:a9fe]', '127.1', '0x7f000001'
  ])('refuses http://%s:<port>/ without connecting', async (host) => {
    const result = await strict.send(`http://${host}:${port}/hook`, body)
    expect(result).toMatchObject({ outcome: 'refused', reason: expect.stringMatching(/^forbidden address /) })
    expect(received).toHaveLength(0)
  })

  it.each(['ftp://example.com/x', 'file:///etc/passwd', 'not a url', '', 'http://', 'javascript:alert(1)'])(
    'refuses %j even when private addresses are allowed', async (url) => {
      expect(await open.send(url, body)).toMatchObject({ outcome: 'refused' })
    })

  it('refuses a name when any of its addresses is forbidden', async () => {
    const sender = createHttpCallbackSender({
      allowPrivate: false,
      timeoutMs: 5000,
      resolve: async () => [{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }]
    })
    expect(await sender.send(`http://receiver.example:${port}/hook`, body))
      .toEqual({ outcome: 'refused', reason: 'forbidden address 127.0.0.1' })
    expect(received).toHaveLength(0)
  })

  it('connects to the address that was resolved and checked, keeping the name for Host', async () => {
    let lookups = 0
    const sender = createHttpCallbackSender({
      allowPrivate: true,
      timeoutMs: 5000,
      resolve: async () => { lookups++; return [{ address: '127.0.0.1', family: 4 }] }
    })
    // receiver.invalid has no DNS entry: the request can only reach the receiver through the pinned address.
    expect(await sender.send(`http://receiver.invalid:${port}/pinned`, body)).toMatchObject({ outcome: 'delivered' })
    expect(lookups).toBe(1)
    expect(received[0]?.headers.host).toBe(`receiver.invalid:${port}`)
  })

  it('retries a name that does not resolve', async () => {
    const sender = createHttpCallbackSender({
      allowPrivate: false,
      timeoutMs: 5000,
      resolve: async () => { throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' }) }
    })
    expect(await sender.send('http://nowhere.example/hook', body)).toMatchObject({ outcome: 'retryable' })
  })
})

describe('isForbiddenAddress', () => {
  it.each([
    '127.0.0.1', '127.255.0.9', '10.1.2.3', '172.31.255.255', '192.168.0.1', '100.127.0.1', '169.254.169.254',
    '0.0.0.0', '224.0.0.1', '255.255.255.255', '::', '::1', 'fc00::1', 'fdff::1', 'fe80::1', 'fe80::1%eth0',
    '::ffff:10.0.0.1', '::ffff:7f00:1', '::127.0.0.1', '64:ff9b::7f00:1', '64:ff9b::10.0.0.1', '64:ff9b::169.254.169.254',
    '64:ff9b:1::808:808', '64:ff9b:1:ffff::1', '2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2002:a00:1::1', 'ff02::1',
    'not-an-ip'
  ])('forbids %s', (address) => { expect(isForbiddenAddress(address)).toBe(true) })

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8',
    '64:ff9b::808:808', '64:ff9b::8.8.4.4', '2002:808:808::1'])('allows %s', (address) => { expect(isForbiddenAddress(address)).toBe(false) })
})

describe('checking a callback URL when its operation is created', () => {
  const names: Record<string, string[]> = { 'hooks.example': ['93.184.216.34'], 'mixed.example': ['93.184.216.34', '10.0.0.7'], 'v6.example': ['fd00::1'] }
  const resolve = async (host: string) => {
    const found = names[host]
    if (found === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' })
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }
  const guard = createHttpCallbackSender({ allowPrivate: false, timeoutMs: 1000, resolve })

  it('accepts a public address, and a name resolving only to public addresses', async () => {
    expect(await guard.check('https://203.0.113.5/hook')).toEqual({ ok: true })
    expect(await guard.check('https://user:pw@hooks.example/hook')).toEqual({ ok: true })
  })

  it('refuses a name with any forbidden address, naming the host and CALLBACK_ALLOW_PRIVATE', async () => {
    expect(await guard.check('http://mixed.example/hook')).toEqual({ ok: false, code: 'callback.forbidden', params: ['mixed.example', 'CALLBACK_ALLOW_PRIVATE'] })
    expect(await guard.check('http://v6.example:8080/')).toEqual({ ok: false, code: 'callback.forbidden', params: ['v6.example', 'CALLBACK_ALLOW_PRIVATE'] })
  })

  it('accepts a name that does not resolve now (delivery retries it and checks it again)', async () => {
    expect(await guard.check('http://not-yet.example/hook')).toEqual({ ok: true })
  })

  it('refuses what is not an http(s) URL, without echoing it', async () => {
    expect(await guard.check('gopher://hooks.example/')).toEqual({ ok: false, code: 'callback.invalid', params: ['callback', 'scheme gopher: not allowed'] })
    expect(await guard.check('::nonsense')).toEqual({ ok: false, code: 'callback.invalid', params: ['callback', 'url.invalid'] })
  })

  it('with allowPrivate accepts any http(s) host without resolving it', async () => {
    const open = createHttpCallbackSender({ allowPrivate: true, timeoutMs: 1000, resolve: async () => { throw new Error('must not resolve') } })
    expect(await open.check('http://127.0.0.1:1/hook')).toEqual({ ok: true })
    expect(await open.check('http://mixed.example/hook')).toEqual({ ok: true })
  })
})
