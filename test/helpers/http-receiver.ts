// A real HTTP server on 127.0.0.1:0 for the callback tests (docs/testing.md: real servers on port 0).
import { once } from 'node:events'
import { createServer, type RequestListener, type Server } from 'node:http'
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
