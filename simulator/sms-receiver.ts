// The SMS gateway of a simulated fleet: the service's SMS_GATEWAY_URL points here, and its connection requests
// (docs/devices.md: POST `{"to": <mobileNumber>, "text", "system"}` as JSON, a 2xx answer means sent)
// reach the device whose SIM has that number, as a shoulder-tap SMS would.
import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readBody } from './http-body.js'

export interface SmsReceiverOptions {
  /** 0: any free port. */
  port: number
  /** Default: every interface. */
  host?: string | undefined
  /** Delivers the SMS to the device with this number; false when no device of the fleet has it. */
  wake: (to: string) => boolean
}

export interface SmsReceiver {
  /** What SMS_GATEWAY_URL should be set to. */
  readonly url: string
  /** SMS delivered to a device of the fleet. */
  readonly delivered: number
  close (): Promise<void>
}

// A shoulder tap is a few dozen bytes; anything much larger is not one.
const MAX_BODY = 16 * 1024

function reply (res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

/** The `to` of a gateway request, or why it is not one. */
export function smsTarget (text: string | undefined): { to: string } | { refused: string } {
  if (text === undefined) return { refused: 'body too large' }
  let json: unknown
  try { json = JSON.parse(text) } catch { return { refused: 'body is not JSON' } }
  const to = (json as { to?: unknown } | null)?.to
  if (typeof to !== 'string' || to === '') return { refused: 'to (the mobile number) is missing' }
  return { to }
}

export async function startSmsReceiver (opts: SmsReceiverOptions): Promise<SmsReceiver> {
  let delivered = 0
  const server = createServer((req, res) => {
    if (req.method !== 'POST') { reply(res, 405, { error: 'POST an SMS: {"to", "text", "system"}' }); return }
    readBody(req, MAX_BODY).then((text) => {
      const target = smsTarget(text)
      if ('refused' in target) { reply(res, 400, { error: target.refused }); return }
      // A number outside the fleet is answered 404, so the service records the request as failed, not sent.
      if (!opts.wake(target.to)) { reply(res, 404, { error: `no device with the number ${target.to}` }); return }
      delivered++
      reply(res, 200, { to: target.to })
    }, () => { res.destroy() })
  })
  server.listen(opts.port, opts.host)
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => { throw err })])
  const address = server.address() as AddressInfo
  const host = opts.host === undefined || opts.host === '0.0.0.0' || opts.host === '::' ? 'localhost' : opts.host
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/sms`,
    get delivered () { return delivered },
    async close () {
      server.closeAllConnections()
      await new Promise<void>((resolve) => { server.close(() => { resolve() }) })
    }
  }
}
