import type { Duplex } from 'node:stream'

/**
 * Writes to stream so that what is written in one turn of the event loop leaves in one write: the PUBACKs of a
 * connection's publishes that one commit stored (a write each cost a system call per packet, bench ingest). Used by
 * the MQTT sessions (session/session.ts).
 */
export function turnWriter (stream: Duplex): (bytes: Buffer) => void {
  let corked = false
  const uncork = (): void => { corked = false; stream.uncork() }
  return (bytes) => {
    if (!corked) { corked = true; stream.cork(); process.nextTick(uncork) }
    stream.write(bytes)
  }
}
