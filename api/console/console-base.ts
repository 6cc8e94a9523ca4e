import type { FastifyRequest } from 'fastify'
import { consoleBase } from '../../core/domain/console-client.js'

/** What the console's address is taken from (core/domain/console-client.ts): the configuration. */
export interface ConsoleAddressConfig { publicUrl: string | undefined, httpHost: string }

/** The console's base address for this request: PUBLIC_URL, or the Host header when it names the listener. */
export function requestConsoleBase (req: FastifyRequest, c: ConsoleAddressConfig): string | undefined {
  return consoleBase(c.publicUrl, { host: req.headers.host, localAddress: req.socket.localAddress, localPort: req.socket.localPort, httpHost: c.httpHost })
}
