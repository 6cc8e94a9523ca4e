// Looking inside datagrams in the tests: which records, epochs, handshake types and alerts a datagram holds.
import { encodeHandshake, encodeRecord, parseHandshakeFragments, parseRecords, type ClientHello } from '../../../protocols/dtls/index.js'
import { encodeClientHello } from '../../../protocols/dtls/hello.js'

export function recordsOf (d: Buffer): Array<{ type: number, epoch: number, seq: number, fragment: Buffer }> {
  return parseRecords(d).records
}

/** Handshake message types in the epoch-0 records of a datagram. */
export function handshakeTypes (d: Buffer): number[] {
  return recordsOf(d).filter((r) => r.type === 22 && r.epoch === 0).flatMap((r) => {
    const p = parseHandshakeFragments(r.fragment)
    return p.ok ? p.fragments.map((f) => f.msgType) : []
  })
}

export const hasEpoch1 = (d: Buffer): boolean => recordsOf(d).some((r) => r.epoch === 1)

/** The plaintext alert of an epoch-0 record, as [level, description]. */
export function plainAlert (d: Buffer): number[] | undefined {
  const r = recordsOf(d).find((x) => x.type === 21 && x.epoch === 0)
  return r === undefined ? undefined : [...r.fragment]
}

export function helloDatagram (hello: ClientHello, messageSeq: number, recordSeq: number): Buffer {
  return encodeRecord({ type: 22, version: 0xfefd, epoch: 0, seq: recordSeq, fragment: encodeHandshake(1, messageSeq, encodeClientHello(hello)) })
}

export function baseHello (over: Partial<ClientHello> = {}): ClientHello {
  return {
    version: 0xfefd,
    random: Buffer.alloc(32, 0x5a),
    sessionId: Buffer.alloc(0),
    cookie: Buffer.alloc(0),
    cipherSuites: [0xc0a8],
    compressions: [0],
    extensions: new Map(),
    ...over
  }
}
