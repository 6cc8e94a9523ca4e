import type { FastifyRequest } from 'fastify'
import type { TLSSocket } from 'node:tls'
import { consoleBase } from '../../core/domain/console-client.js'

/** What the console's address is taken from (core/domain/console-client.ts): the configuration. */
export interface ConsoleAddressConfig { publicUrl: string | undefined, httpHost: string }

/**
 * The console's base address for this request: PUBLIC_URL, or the Host header when it names the listener. Whether it
 * came over TLS is read from its socket (the HTTPS port's, bin/https-listener.ts), not from `req.protocol`, which
 * believes X-Forwarded-Proto from a trusted proxy: behind a proxy, PUBLIC_URL is the answer (docs/decisions/0007-sign-in-throttling-http-identity-and-console-address.md).
 */
export function requestConsoleBase (req: FastifyRequest, c: ConsoleAddressConfig): string | undefined {
  const secure = (req.socket as Partial<TLSSocket>).encrypted === true
  return consoleBase(c.publicUrl, { host: req.headers.host, localAddress: req.socket.localAddress, localPort: req.socket.localPort, secure, httpHost: c.httpHost })
}
