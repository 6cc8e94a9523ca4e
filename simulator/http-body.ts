// The body of a request to one of the simulator's small HTTP servers (the SMS gateway tap, the AceManager endpoint):
// read whole as UTF-8, or undefined once it passes `maxBytes` (what those servers take is small; more is refused).
import type { IncomingMessage } from 'node:http'

export async function readBody (req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > maxBytes) return undefined
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}
