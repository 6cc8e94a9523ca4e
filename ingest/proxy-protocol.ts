// Device listeners behind a TCP reverse proxy (docs/security.md#behind-a-proxy): with MQTT_PROXY_PROTOCOL or
// M3DA_PROXY_PROTOCOL on, every connection must come from a TRUST_PROXY address and start with a PROXY protocol header
// (protocols/proxy/header.ts), whose client address then stands for the connection's everywhere (device IP filters,
// the login gate, login throttling, logs). Anything else is closed before a byte reaches the device protocol: a
// connection that could skip the header would choose its own address.
import type { Socket } from 'node:net'
import type { Config } from '../core/config.js'
import type { Logger } from '../core/logger.js'
import type { MetricsRegistry } from '../core/metrics.js'
import { isTrustedProxy } from '../core/domain/trusted-proxies.js'
import { parseProxyHeader } from '../protocols/proxy/header.js'

export interface ProxyProtocolOptions {
  /** The transport's name in the metric and the logs (`mqtt`, `m3da`). */
  transport: string
  /** Off: the socket's own remote address is the client's. */
  enabled: boolean
  /** TRUST_PROXY: the only peers allowed to send a header. */
  trusted: readonly string[]
  /** PROXY_PROTOCOL_TIMEOUT_MS: how long the whole header may take to arrive. */
  timeoutMs: number
  metrics: MetricsRegistry
  log: Logger
}

/** The options of one transport's listener, from the configuration. */
export function proxyProtocolOptions (config: Readonly<Config>, transport: 'mqtt' | 'm3da', metrics: MetricsRegistry, log: Logger): ProxyProtocolOptions {
  const enabled = transport === 'mqtt' ? config.MQTT_PROXY_PROTOCOL : config.M3DA_PROXY_PROTOCOL
  return { transport, enabled, trusted: config.TRUST_PROXY, timeoutMs: config.PROXY_PROTOCOL_TIMEOUT_MS, metrics, log }
}

/**
 * A server's connection listener: serve gets each connection with its client's address, after its header when the
 * PROXY protocol is on (the bytes after the header stay unread for serve), at once when it is off or opts absent.
 */
export function acceptProxied (opts: ProxyProtocolOptions | undefined, serve: (socket: Socket, clientAddress: string) => void): (socket: Socket) => void {
  if (opts?.enabled !== true) return (socket) => { serve(socket, socket.remoteAddress ?? '') }
  const refused = opts.metrics.counter<'transport' | 'reason'>({
    name: 'fleet_proxy_protocol_refused_total',
    help: 'Connections closed before their PROXY protocol header was read, by transport and reason (untrusted_peer: not from a TRUST_PROXY address; invalid_header; timeout)',
    labels: ['transport', 'reason']
  })
  return (socket) => {
    const peer = socket.remoteAddress ?? ''
    const refuse = (reason: string): void => {
      refused.inc({ transport: opts.transport, reason })
      opts.log.debug({ transport: opts.transport, peer, reason }, 'connection refused before its PROXY protocol header')
      socket.destroy()
    }
    if (!isTrustedProxy(peer, opts.trusted)) { refuse('untrusted_peer'); return }
    let seen: Buffer = Buffer.alloc(0)
    const timer = setTimeout(() => { refuse('timeout') }, opts.timeoutMs)
    const onError = (): void => { socket.destroy() }
    const onData = (chunk: Buffer): void => {
      seen = seen.length === 0 ? chunk : Buffer.concat([seen, chunk])
      const header = parseProxyHeader(seen)
      if (header.kind === 'need-more') return
      clearTimeout(timer)
      socket.off('data', onData)
      socket.off('error', onError)
      if (header.kind === 'invalid') { refuse('invalid_header'); return }
      socket.pause()
      if (seen.length > header.length) socket.unshift(seen.subarray(header.length))
      // LOCAL and UNKNOWN headers name no client: the proxy speaks for itself (its health checks).
      serve(socket, header.source?.address ?? peer)
      socket.resume()
    }
    socket.on('data', onData)
    socket.on('error', onError)
    socket.once('close', () => { clearTimeout(timer) })
  }
}
