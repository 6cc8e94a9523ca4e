// A live stream client for the tests of GET /api/v1/stream: a real `ws` WebSocket on the stack's port,
// every server message kept, waits on what arrives (no sleeps), and the close code and reason.
import { WebSocket } from 'ws'
import type { Stack } from './stack.js'

export type Json = Record<string, any>

export interface StreamClient {
  ws: WebSocket
  /** Every message received so far, in order. */
  received: Json[]
  send (command: Json): void
  /** The first message not taken yet that matches, waiting for it up to `ms`. */
  take (match: (m: Json) => boolean, ms?: number, what?: string): Promise<Json>
  /** Sends a command and answers the server's answer to it (the message with the same ref). */
  ask (command: Json, ms?: number): Promise<Json>
  /** Resolves with the close code and reason once the socket is closed. */
  closed: Promise<{ code: number, reason: string }>
  close (): Promise<void>
}

let refs = 0

export function streamUrl (stack: Stack, query = ''): string {
  return `${stack.httpUrl.replace(/^http/, 'ws')}/api/v1/stream${query === '' ? '' : `?${query}`}`
}

/** Connects with the token in the Authorization header (or, `via: 'query'`, as access_token) and waits for open. */
export async function openStream (stack: Stack, token: string, opts: { company?: string, via?: 'header' | 'query', url?: string } = {}): Promise<StreamClient> {
  const q = new URLSearchParams()
  if (opts.company !== undefined) q.set('company', opts.company)
  if (opts.via === 'query') q.set('access_token', token)
  const url = opts.url ?? streamUrl(stack, q.toString())
  const ws = new WebSocket(url, opts.via === 'query' ? {} : { headers: { authorization: `Bearer ${token}` } })
  const received: Json[] = []
  const taken = new Set<number>()
  const waiters = new Set<() => void>()
  ws.on('message', (data) => {
    received.push(JSON.parse(String(data)) as Json)
    for (const w of waiters) w()
  })
  const closed = new Promise<{ code: number, reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() })
      for (const w of waiters) w()
    })
  })
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => { resolve() })
    ws.once('error', reject)
    ws.once('unexpected-response', (_req, res) => { reject(new Error(`upgrade refused: ${res.statusCode ?? 0}`)) })
  })
  ws.on('error', () => {})

  async function take (match: (m: Json) => boolean, ms = 20_000, what = 'a stream message'): Promise<Json> {
    const find = (): Json | undefined => {
      const i = received.findIndex((m, n) => !taken.has(n) && match(m))
      if (i < 0) return undefined
      taken.add(i)
      return received[i]
    }
    const now = find()
    if (now !== undefined) return now
    return await new Promise<Json>((resolve, reject) => {
      const done = (): void => { waiters.delete(check); clearTimeout(timer) }
      const check = (): void => {
        const m = find()
        if (m !== undefined) { done(); resolve(m); return }
        if (ws.readyState === WebSocket.CLOSED) { done(); reject(new Error(`stream closed while waiting for ${what}; received ${JSON.stringify(received).slice(-600)}`)) }
      }
      const timer = setTimeout(() => { done(); reject(new Error(`timed out waiting for ${what}; received ${JSON.stringify(received).slice(-600)}`)) }, ms)
      waiters.add(check)
    })
  }

  const client: StreamClient = {
    ws,
    received,
    send (command) { ws.send(JSON.stringify(command)) },
    take,
    async ask (command, ms) {
      const ref = typeof command.ref === 'string' ? command.ref : `r${++refs}`
      client.send({ ...command, ref })
      return await take((m) => m.ref === ref, ms, `the answer to ${ref}`)
    },
    closed,
    async close () {
      if (ws.readyState === WebSocket.CLOSED) return
      ws.close()
      await closed
    }
  }
  return client
}

/** The HTTP status of a refused upgrade, and its JSON body (the API's error body). */
export async function refusedUpgrade (url: string, headers: Record<string, string> = {}): Promise<{ status: number, body: Json }> {
  const ws = new WebSocket(url, { headers })
  return await new Promise((resolve, reject) => {
    ws.once('open', () => { ws.close(); reject(new Error('the upgrade was accepted')) })
    ws.once('error', () => {})
    ws.once('unexpected-response', (_req, res) => {
      let text = ''
      res.on('data', (c: Buffer) => { text += c.toString() })
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, body: text === '' ? {} : JSON.parse(text) as Json }) })
    })
  })
}

/**
 * What a stream received about `system` before a marker: sends nothing, but waits for the marker event (a message of
 * `marker` system) so that everything committed before it had its chance to arrive.
 */
export function about (client: StreamClient, system: string): Json[] {
  return client.received.filter((m) => m.system === system)
}
