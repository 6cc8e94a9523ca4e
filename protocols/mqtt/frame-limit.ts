// Packet sizes checked on the raw byte stream, before a parser buffers a packet whole: the remaining length of
// every packet (MQTT 3.1.1 §2.2.3, MQTT 5.0 §1.5.5: 1 to 4 bytes of 7 bits) is read as it goes by, and a packet
// announced too large is refused at its header. mqtt-packet does not bound a packet (up to 256 MB).

export type FrameCheck = 'ok' | 'too-large' | 'invalid'

export interface FrameLimit {
  /** Feeds the next bytes of the connection; once not 'ok', it stays so. */
  feed (chunk: Uint8Array): FrameCheck
}

/** `first`: the largest remaining length of the first packet (CONNECT); `next`: of every later one. */
export function createFrameLimit (limits: { first: number, next: number }): FrameLimit {
  let state: 'header' | 'length' | 'body' = 'header'
  let length = 0
  let multiplier = 1
  let lengthBytes = 0
  let left = 0
  let packets = 0
  let result: FrameCheck = 'ok'

  function step (chunk: Uint8Array): FrameCheck {
    let i = 0
    while (i < chunk.length) {
      if (state === 'body') {
        const n = Math.min(left, chunk.length - i)
        left -= n
        i += n
        if (left === 0) { state = 'header'; packets++ }
        continue
      }
      if (state === 'header') {
        i++
        state = 'length'
        length = 0
        multiplier = 1
        lengthBytes = 0
        continue
      }
      const b = chunk[i++] ?? 0
      length += (b & 0x7f) * multiplier
      multiplier *= 128
      lengthBytes++
      if (length > (packets === 0 ? limits.first : limits.next)) return 'too-large'
      if ((b & 0x80) !== 0) {
        if (lengthBytes === 4) return 'invalid'
        continue
      }
      left = length
      if (left === 0) { state = 'header'; packets++ } else state = 'body'
    }
    return 'ok'
  }

  return {
    feed (chunk) {
      if (result === 'ok') result = step(chunk)
      return result
    }
  }
}
