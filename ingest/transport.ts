// The shape every device transport has (a device protocol is a folder under ingest/ plus one line in the list of
// bin/transports.ts: protocol-module.ts). A transport serves devices on a port of its own, on the HTTP port, or both; it
// delivers tasks to the devices it has connected (push transports) or lets them fetch theirs (polling transports).
import type { Server } from 'node:net'
import type { FastifyPluginAsync } from 'fastify'
import type { Logger } from '../core/logger.js'
import type { Config } from '../core/config.js'
import type { DeviceProtocol } from '../core/domain/device-message.js'
import type { DeviceTask } from '../core/domain/device-task.js'
import type { DevicesService } from '../core/services/ingest/devices.service.js'
import type { IngestService } from '../core/services/ingest/ingest.service.js'
import type { MetricsRegistry } from '../core/metrics.js'
import type { ExtraPeriodicJobs } from '../core/operations/jobs.js'
import type { TlsListeners } from './tls/tls-listeners.js'

/** What a transport is given when it is built (bin/serve.ts). */
/**
 * The accept queue of every device port (MQTT, M3DA over TCP, and the HTTP port of REST devices). A fleet comes back
 * all at once after a reboot or an outage: with Node's default of 511 pending connections, 10,000 devices rebooting
 * within a few seconds overflowed it (the kernel's ListenOverflows counted hundreds of thousands), and each dropped
 * connection waited for its TCP retry, 1, 3, then 7 s later (bench reboot). The kernel caps it at net.core.somaxconn.
 */
export const LISTEN_BACKLOG = 4096

/** Binds a device listener's server (its accept queue LISTEN_BACKLOG) and answers the bound port (port 0: any free). */
export async function listenOn (server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => { server.off('error', reject); resolve() })
  })
  const address = server.address()
  return typeof address === 'object' && address !== null ? address.port : port
}

/**
 * A listener whose server is built when it binds. `close` stops accepting, lets `drop` end the connections the server
 * would otherwise wait for, and resolves once the server has closed.
 */
export function serverListener<S extends Server> (build: () => S, drop: (server: S) => void): { listen: TransportListener['listen'], listening: () => boolean, close: () => Promise<void> } {
  let server: S | undefined
  return {
    async listen (port, host) {
      server = build()
      return await listenOn(server, port, host)
    },
    listening: () => server?.listening === true,
    async close () {
      const s = server
      if (s === undefined) return
      const closed = new Promise<void>((resolve) => { s.close(() => { resolve() }) })
      drop(s)
      await closed
    }
  }
}

export interface TransportDeps {
  config: Readonly<Config>
  devices: DevicesService
  ingest: IngestService
  log: Logger
  metrics: MetricsRegistry
  now: () => number
  /**
   * Whether this process takes device traffic (the `ingest` role; default true). Without it a transport
   * still delivers tasks where it can from here (an external broker) and runs its jobs, but reads nothing from devices.
   */
  accept?: boolean
  /** The TLS context of the TLS listeners (TLS_CERT_FILE and TLS_KEY_FILE); absent: the transports listen in clear only. */
  tls?: TlsListeners
}

/** One listener of a transport on a port of its own (a transport may have several: MQTT and MQTT over TLS). */
export interface TransportListener {
  /** Its name among the bound ports and in GET /ready (`mqtt`, `mqtts`, `m3da`). */
  readonly name: string
  /** The configuration variable of its port, named in a start failure (a busy port). */
  readonly variable: keyof Config
  listen (port: number, host: string): Promise<number>
  /** True while it accepts connections (GET /ready). */
  listening (): boolean
}

export interface DeviceTransport {
  /** Its name in logs, metrics and errors ("mqtt", "rest", "m3da"...). */
  readonly name: string
  /** The device protocols whose tasks it carries (docs/devices.md: MQTT, REST, M3DA, ...). */
  readonly protocols: readonly DeviceProtocol[]
  /** Routes it serves on the service's HTTP port (REST device API, MQTT over WebSocket...). */
  readonly http?: FastifyPluginAsync
  /** Its listeners on ports of their own, bound by the service in this order (none: HTTP routes only). */
  readonly listeners?: readonly TransportListener[]
  /** Whether the system has a connection to this process over this transport. */
  connected (systemUid: string): boolean
  /** Sends tasks to a connected device; false when it is not connected here (they wait for its next connection). */
  push?: (systemUid: string, tasks: readonly DeviceTask[]) => Promise<boolean>
  /** Connections by kind for the connected-devices metric (e.g. MQTT version). */
  connections (): Array<{ kind: string, count: number }>
  /**
   * Closes this process's connections that logged in with this certificate, or with one under this CA (fingerprints,
   * docs/security.md#device-certificates): a revocation; returns how many. Absent: its devices log in per request
   * (REST), where the next request is refused anyway.
   */
  revoked?: (fingerprint: string) => number
  /**
   * Periodic work of its own (a poller), by job name: repeatable jobs of the queue (bin/serve.ts), so each runs once
   * per period across every process, never as a timer of one process.
   */
  readonly jobs?: ExtraPeriodicJobs
  /** Stops accepting, ends its connections. */
  close (): Promise<void>
}

export type TransportFactory = (deps: TransportDeps) => Promise<DeviceTransport>
