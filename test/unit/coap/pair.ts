// Two endpoints wired back to back in memory, for the endpoint tests: A (our LwM2M server, say) sees B as peer "B",
// B (a device) sees A as "A", and A's other peer keys as other peers (see `sender`). Every datagram is logged,
// decoded, and delivered on a later microtask unless a drop filter takes it; nothing waits on a real clock (the tests
// use vitest fake timers where time matters).
import { CoapEndpoint, decodeMessage, formatCode, type CoapMessage, type EndpointOptions } from '../../../protocols/coap/index.js'

/** `peer` is the key the sender addressed it to (everything A sends reaches B, whatever the key). */
export interface Datagram { from: 'A' | 'B', peer: string, at: number, buf: Buffer, msg: CoapMessage | undefined, dropped: boolean }

export type Side = Omit<EndpointOptions, 'send'>

export interface Pair {
  a: CoapEndpoint
  b: CoapEndpoint
  wire: Datagram[]
  /** Drops the datagrams the filter answers true for (from now on). */
  drop: (filter: (d: Datagram) => boolean) => void
  /** "A CON 0.01", "B ACK 2.05"…: the wire in short, dropped ones marked "x". */
  trace: () => string[]
  close: () => void
}

const TYPES = ['CON', 'NON', 'ACK', 'RST']

export const summary = (d: Datagram): string =>
  `${d.dropped ? 'x ' : ''}${d.from} ${d.msg === undefined ? '?' : `${TYPES[d.msg.type]} ${formatCode(d.msg.code)}`}`

export function pair (aOptions: Side = {}, bOptions: Side = {}): Pair {
  const wire: Datagram[] = []
  let filter: (d: Datagram) => boolean = () => false
  const ends: { A?: CoapEndpoint, B?: CoapEndpoint } = {}
  // A's peer "B" is B's peer "A"; any other key k A sends to reaches B as peer "A@k", whose answers come back from k.
  const sender = (from: 'A' | 'B', peer: string): string =>
    from === 'A' ? (peer === 'B' ? 'A' : `A@${peer}`) : (peer === 'A' ? 'B' : peer.startsWith('A@') ? peer.slice(2) : peer)
  const link = (from: 'A' | 'B', to: 'A' | 'B') => (peer: string, buf: Buffer): void => {
    const r = decodeMessage(buf)
    const d: Datagram = { from, peer, at: Date.now(), buf: Buffer.from(buf), msg: r.ok ? r.message : undefined, dropped: false }
    wire.push(d)
    if (filter(d)) {
      d.dropped = true
      return
    }
    const as = sender(from, peer)
    queueMicrotask(() => { ends[to]?.receive(as, d.buf) })
  }
  const a = ends.A = new CoapEndpoint({ random: () => 0, ...aOptions, send: link('A', 'B') })
  const b = ends.B = new CoapEndpoint({ random: () => 0, ...bOptions, send: link('B', 'A') })
  return {
    a,
    b,
    wire,
    drop: (f) => { filter = f },
    trace: () => wire.map(summary),
    close: () => { a.close(); b.close() }
  }
}

/** Lets every queued delivery (and what it triggers) happen. */
export async function settle (rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve()
}
