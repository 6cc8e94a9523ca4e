// A plain HTTP client for the download tests, as device agents are: no header unless given, real sockets, and the
// means to stop reading or cut a download in the middle.
import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import { createHash } from 'node:crypto'

export interface Answer { status: number, headers: IncomingHttpHeaders, body: Buffer }

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex')

/** Sends the request and answers the response as soon as its headers arrive (its body unread). */
export async function open (url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<IncomingMessage> {
  return await new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, resolve)
    req.on('error', reject)
    req.end()
  })
}

export async function readAll (res: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const p of res) parts.push(p as Buffer)
  return Buffer.concat(parts)
}

export async function fetchBytes (url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  const res = await open(url, headers, method)
  return { status: res.statusCode ?? 0, headers: res.headers, body: await readAll(res) }
}

/** Reads at least `bytes` of the body, then destroys the socket mid-download; answers what arrived. */
export async function cutAfter (url: string, bytes: number): Promise<Buffer> {
  const res = await open(url)
  const parts: Buffer[] = []
  let got = 0
  for await (const p of res) {
    parts.push(p as Buffer)
    got += (p as Buffer).length
    if (got >= bytes) break // leaving the loop destroys the response, and with it the socket
  }
  return Buffer.concat(parts)
}
