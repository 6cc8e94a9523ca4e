// A real HTTP server on 127.0.0.1:0 for the callback tests (docs/testing.md: real servers on port 0).
import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Receiver { server: Server, port: number, origin: string, close: () => Promise<void> }

/** Listens with `handler`; `origin` is `127.0.0.1:<port>`; close() drops open connections too. */
export async function listenLocal (handler: RequestListener): Promise<Receiver> {
  const server = createServer(handler)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as AddressInfo).port
  return {
    server,
    port,
    origin: `127.0.0.1:${port}`,
    async close () {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    }
  }
}

/** A port on 127.0.0.1 that nothing listens on (it was just freed): connections to it are refused. */
export async function closedPort (): Promise<number> {
  const r = await listenLocal(() => {})
  await r.close()
  return r.port
}

export interface ReceivedRequest { at: number, method: string, path: string, headers: IncomingHttpHeaders, body: string }

/**
 * A receiver that keeps every request in `received`; a path set in `failures` answers 500 that many times first, then
 * 204 (a hook or callback retried until it is delivered).
 */
export async function recordingReceiver (): Promise<Receiver & { received: ReceivedRequest[], failures: Map<string, number> }> {
  const received: ReceivedRequest[] = []
  const failures = new Map<string, number>()
  const r = await listenLocal((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const path = req.url ?? ''
      received.push({ at: Date.now(), method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      const left = failures.get(path) ?? 0
      if (left > 0) failures.set(path, left - 1)
      res.writeHead(left > 0 ? 500 : 204)
      res.end()
    })
  })
  return { ...r, received, failures }
}
