// One HTTP request of a device that speaks over HTTP (REST, hawkBit DDI): its authorization, a JSON body or none, the
// answer's text, the bytes counted for the link counters; anything but 200 is a TransportError with what the service
// answered.
import { TransportError } from './transport.js'

const HEADERS = 200 // request line and headers, roughly: for the link counters

export interface HttpDevice {
  /** `target`: a path under the base, or a whole URL (a link the service gave); messages name it as given. */
  call (method: 'GET' | 'POST' | 'PUT', target: string, body?: string): Promise<string>
  readonly lastTraffic: { sent: number, received: number }
  close (): void
}

export function httpDevice (baseUrl: string, authorization: string): HttpDevice {
  const base = baseUrl.replace(/\/+$/, '')
  const traffic = { sent: 0, received: 0 }
  let closed = false
  return {
    async call (method, target, body) {
      const url = /^https?:\/\//.test(target) ? target : base + target
      if (closed) throw new TransportError('device closed')
      let res: Response
      try {
        res = await fetch(url, {
          method,
          headers: body === undefined ? { authorization } : { authorization, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body })
        })
      } catch (err) {
        throw new TransportError(`${method} ${target}: ${(err as Error).message}`)
      }
      const text = await res.text()
      traffic.sent = HEADERS + (body === undefined ? 0 : Buffer.byteLength(body))
      traffic.received = HEADERS + Buffer.byteLength(text)
      if (res.status !== 200) throw new TransportError(`${method} ${target}: ${res.status} ${text}`, res.status)
      return text
    },
    lastTraffic: traffic,
    close () { closed = true }
  }
}
