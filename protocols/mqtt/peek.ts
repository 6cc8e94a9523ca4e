// Reads the protocol level and the connect flags of an MQTT CONNECT packet without consuming it, so that a connection
// can be parsed as its version, or refused when no version served (MQTT 3.1.1 §3.1.2.1-3, MQTT 5.0 §3.1.2.1-3).
// Layout: 0x10 | remaining length (1-4 bytes, 7 bits each) | protocol name (u16 length + "MQTT" or "MQIsdp") | level |
// connect flags (bit 2: a Will).

export type Peek = { kind: 'level', level: number, will: boolean } | { kind: 'need-more' } | { kind: 'invalid' }

export function peekProtocolLevel (buf: Uint8Array): Peek {
  if (buf.length === 0) return { kind: 'need-more' }
  if (buf[0] !== 0x10) return { kind: 'invalid' }
  let at = 1
  for (let i = 0; i < 4; i++, at++) {
    if (at >= buf.length) return { kind: 'need-more' }
    if (((buf[at] ?? 0) & 0x80) === 0) break
    if (i === 3) return { kind: 'invalid' }
  }
  at++
  if (buf.length < at + 2) return { kind: 'need-more' }
  const nameLength = ((buf[at] ?? 0) << 8) | (buf[at + 1] ?? 0)
  if (nameLength !== 4 && nameLength !== 6) return { kind: 'invalid' }
  const levelAt = at + 2 + nameLength
  if (buf.length < levelAt) return { kind: 'need-more' }
  const name = String.fromCharCode(...buf.subarray(at + 2, levelAt))
  if (name !== 'MQTT' && name !== 'MQIsdp') return { kind: 'invalid' }
  if (buf.length <= levelAt + 1) return { kind: 'need-more' }
  return { kind: 'level', level: buf[levelAt] ?? 0, will: ((buf[levelAt + 1] ?? 0) & 0x04) !== 0 }
}
