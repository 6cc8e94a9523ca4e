// The SMS shoulder tap (docs/devices.md, "Connection request") against a real HTTP receiver on port 0:
// the JSON body, 2xx = sent, anything else = failed and logged without the URL's credentials, no gateway =
// unavailable.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { pino } from 'pino'
import { loadConfig } from '../../../core/config.js'
import { createSmsGateway, SHOULDER_TAP_TEXT } from '../../../storage/notify/sms-gateway.js'
import { closedPort, listenLocal, type Receiver } from '../../helpers/http-receiver.js'

interface Received { method: string, url: string, headers: IncomingMessage['headers'], body: any }

const lines: string[] = []
// A plain logger, without the redaction of the service's: what the gateway logs must hold no secret by itself.
const log = pino({ level: 'trace' }, { write (line: string): void { lines.push(line) } })

let receiver: Receiver | undefined
afterEach(async () => { await receiver?.close(); receiver = undefined; lines.length = 0 })

/** A receiver answering `status` (or never, with 'hang'); what it received. */
async function gateway (status: number | 'hang'): Promise<{ received: Received[], url: string }> {
  const received: Received[] = []
  receiver = await listenLocal((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: text === '' ? undefined : JSON.parse(text) })
      if (status === 'hang') return
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}')
    })
  })
  return { received, url: `http://${receiver.origin}/sms/send?route=fleet` }
}

const target = { systemUid: 'sys-1', mobileNumber: '+33612345678', protocol: 'MQTT' as const }

describe('SMS gateway connection requester', () => {
  it('POSTs {to, text, system} as JSON and answers sent on a 2xx', async () => {
    const g = await gateway(202)
    expect(await createSmsGateway({ url: g.url, log }).request(target)).toBe('sent')
    expect(g.received).toHaveLength(1)
    const [r] = g.received
    expect(r?.method).toBe('POST')
    expect(r?.url).toBe('/sms/send?route=fleet')
    expect(r?.headers['content-type']).toBe('application/json')
    expect(r?.body).toEqual({ to: '+33612345678', text: 'FLEET CONNECT', system: 'sys-1' })
  })

  it('sends the shoulder-tap text of the protocol', async () => {
    const g = await gateway(200)
    const sms = createSmsGateway({ url: g.url, log })
    for (const protocol of ['MQTT', 'REST', 'M3DA'] as const) expect(await sms.request({ ...target, protocol })).toBe('sent')
    expect(g.received.map((r) => r.body.text)).toEqual(['FLEET CONNECT', 'FLEET CONNECT', 'M3DA WAKEUP'])
    expect(SHOULDER_TAP_TEXT.M3DA).toBe('M3DA WAKEUP')
  })

  it('turns credentials of the URL into Basic auth and never logs them', async () => {
    const g = await gateway(503)
    const url = g.url.replace('http://', 'http://sms-user:s%40cret-pw@')
    expect(await createSmsGateway({ url, log }).request(target)).toBe('failed')
    expect(g.received[0]?.headers.authorization).toBe('Basic ' + Buffer.from('sms-user:s@cret-pw').toString('base64'))
    const logged = lines.join('\n')
    expect(logged).toContain('SMS gateway refused')
    expect(logged).toContain('"status":503')
    for (const secret of ['s@cret-pw', 's%40cret-pw', Buffer.from('sms-user:s@cret-pw').toString('base64')]) expect(logged).not.toContain(secret)
  })

  it('answers failed on a non-2xx answer, a redirect included', async () => {
    for (const status of [400, 302, 500]) {
      const g = await gateway(status)
      expect(await createSmsGateway({ url: g.url, log }).request(target)).toBe('failed')
      expect(g.received).toHaveLength(1)
      await receiver?.close()
      receiver = undefined
    }
  })

  it('answers failed when the gateway cannot be reached', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/send`
    expect(await createSmsGateway({ url, log }).request(target)).toBe('failed')
    expect(lines.join('\n')).toContain('SMS gateway not reached')
  })

  it('answers failed when the gateway does not answer in time', async () => {
    const g = await gateway('hang')
    expect(await createSmsGateway({ url: g.url, log, timeoutMs: 300 }).request(target)).toBe('failed')
    expect(g.received).toHaveLength(1)
    expect(lines.join('\n')).toContain('no answer within 300 ms')
  })

  it('answers unavailable without SMS_GATEWAY_URL, and the variable takes only http(s) URLs', async () => {
    expect(await createSmsGateway({ url: loadConfig({}).SMS_GATEWAY_URL, log }).request(target)).toBe('unavailable')
    expect(loadConfig({ SMS_GATEWAY_URL: 'https://sms.example.com/send' }).SMS_GATEWAY_URL).toBe('https://sms.example.com/send')
    expect(() => loadConfig({ SMS_GATEWAY_URL: 'ftp://sms.example.com' })).toThrow(/SMS_GATEWAY_URL/)
    expect(() => loadConfig({ SMS_GATEWAY_URL: 'not a url' })).toThrow(/SMS_GATEWAY_URL/)
  })
})
