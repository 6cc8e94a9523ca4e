// An in-memory DTLS link for the unit tests: a DtlsEndpoint whose datagrams land in an array, and ClientConnections
// driven by hand. No socket; `pump` carries datagrams both ways until nothing moves, and a filter may drop, repeat
// or rewrite any of them to play a lossy network.
import { ClientConnection, DtlsEndpoint, type ClientConnectionOptions, type DtlsServerOptions, type DtlsSession, type Output, type Remote } from '../../../protocols/dtls/index.js'

export const PSK = Buffer.from('00112233445566778899aabbccddeeff', 'hex')
export const IDENTITY = 'device-1'
export const REMOTE: Remote = { address: '192.0.2.10', port: 40000 }

export interface Server {
  endpoint: DtlsEndpoint
  /** Datagrams the server sent, by peer, not yet delivered. */
  outbox: Array<{ datagram: Buffer, remote: Remote }>
  sessions: DtlsSession[]
}

export function makeServer (options: Partial<DtlsServerOptions> = {}): Server {
  const outbox: Server['outbox'] = []
  const endpoint = new DtlsEndpoint({
    pskFor: async (identity) => identity === IDENTITY ? PSK : undefined,
    ...options
  }, (datagram, remote) => { outbox.push({ datagram, remote }) })
  const sessions: DtlsSession[] = []
  endpoint.on('session', (s: DtlsSession) => sessions.push(s))
  return { endpoint, outbox, sessions }
}

export function makeClient (options: Partial<ClientConnectionOptions> = {}): ClientConnection {
  return new ClientConnection({ identity: IDENTITY, psk: PSK, ...options })
}

/** What the client saw over a pump. */
export interface ClientLog { data: Buffer[], closed: string | undefined, established: boolean }

export type Direction = 'to-server' | 'to-client'
/** Answers the datagrams to deliver in place of this one: [] drops it, [d, d] repeats it. */
export type Filter = (direction: Direction, datagram: Buffer, index: number) => Buffer[]

const pass: Filter = (_direction, d) => [d]

/** Carries datagrams until neither side has anything to send (or 50 rounds). */
export async function pump (
  server: Server, client: ClientConnection, first: Buffer[], filter: Filter = pass, remote: Remote = REMOTE
): Promise<ClientLog> {
  const log: ClientLog = { data: [], closed: undefined, established: false }
  let toServer = first
  let sent = 0
  for (let round = 0; round < 50; round++) {
    for (const d of toServer) {
      for (const x of filter('to-server', d, sent++)) await server.endpoint.handle(x, remote)
    }
    toServer = []
    const mine = server.outbox.filter((o) => o.remote.port === remote.port && o.remote.address === remote.address)
    server.outbox.splice(0, server.outbox.length, ...server.outbox.filter((o) => !mine.includes(o)))
    if (mine.length === 0) break
    for (const { datagram } of mine) {
      for (const x of filter('to-client', datagram, sent++)) {
        const out = await client.receive(x)
        note(log, out)
        toServer.push(...out.datagrams)
      }
    }
  }
  return log
}

export function note (log: ClientLog, out: Output): void {
  log.data.push(...out.data)
  if (out.established) log.established = true
  if (out.closed !== undefined) log.closed = out.closed
}

/** A full handshake over a clean link; the server's session for it. */
export async function connect (server: Server, client = makeClient(), remote: Remote = REMOTE): Promise<{ client: ClientConnection, session: DtlsSession, log: ClientLog }> {
  const before = server.sessions.length
  const log = await pump(server, client, client.start().datagrams, pass, remote)
  const session = server.sessions[before]
  if (!log.established || session === undefined) throw new Error(`no handshake: ${JSON.stringify(log)} ${JSON.stringify(server.endpoint.counters)}`)
  return { client, session, log }
}
