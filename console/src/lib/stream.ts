// The live stream client (docs/stream.md): one WebSocket to /api/v1/stream per tab, shared by the
// pages' subscriptions. It reconnects with a growing wait (1 s doubling to 30 s, with jitter) and subscribes again.
// The service's events do not name the subscription they answer, so each subscription gets the events of its kind
// (systems: message, points, commStatus; operations: operation), narrowed here to its uids and dataIds when it has
// them; a label or criteria subscription gets every system event of the stream.

export type StreamFilter = Record<string, unknown>
export interface StreamEvent { event: string, ref?: string, [field: string]: unknown }

interface Subscription {
  ref: string
  filter: StreamFilter
  onEvent: (e: never) => void
  /** The service's id, once subscribed on the current socket. */
  id?: string
}

export interface LiveStreamOptions {
  token: () => Promise<string | undefined>
  company: () => string | undefined
}

const SYSTEM_EVENTS = new Set(['message', 'points', 'commStatus'])
const IDLE_CLOSE_MS = 30_000
const MAX_WAIT_MS = 30_000

export class LiveStream {
  private socket: WebSocket | undefined
  private readonly subs = new Map<string, Subscription>()
  private counter = 0
  private attempts = 0
  private retry: ReturnType<typeof setTimeout> | undefined
  private idle: ReturnType<typeof setTimeout> | undefined
  private closed = false

  constructor (private readonly opts: LiveStreamOptions) {}

  /** Follows what the filter names (a subscribe command without `action`); answers the function that stops it. */
  subscribe<E = StreamEvent> (filter: StreamFilter, onEvent: (e: E) => void): () => void {
    const sub: Subscription = { ref: `c${++this.counter}`, filter, onEvent: onEvent as (e: never) => void }
    this.subs.set(sub.ref, sub)
    clearTimeout(this.idle)
    if (this.socket === undefined) this.connect()
    else if (this.socket.readyState === WebSocket.OPEN) this.sendSubscribe(sub)
    return () => { this.unsubscribe(sub.ref) }
  }

  close (): void {
    this.closed = true
    clearTimeout(this.retry)
    this.socket?.close()
  }

  private unsubscribe (ref: string): void {
    const sub = this.subs.get(ref)
    if (sub === undefined) return
    this.subs.delete(ref)
    if (sub.id !== undefined) this.send({ action: 'unsubscribe', subscription: sub.id })
    // Pages come and go: the socket stays a while for the next page's subscriptions.
    if (this.subs.size === 0) this.idle = setTimeout(() => { if (this.subs.size === 0) this.socket?.close() }, IDLE_CLOSE_MS)
  }

  private connect (): void {
    if (this.closed) return
    this.opts.token().then((token) => {
      if (token === undefined || this.closed) return
      const q = new URLSearchParams({ access_token: token })
      const company = this.opts.company()
      if (company !== undefined) q.set('company', company)
      const socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v1/stream?${q.toString()}`)
      this.socket = socket
      socket.addEventListener('open', () => {
        this.attempts = 0
        for (const sub of this.subs.values()) this.sendSubscribe(sub)
      })
      socket.addEventListener('message', (m) => { this.receive(m.data) })
      socket.addEventListener('close', () => { this.reconnect(socket) })
    }).catch((err: unknown) => { console.error('live stream: no token', err) })
  }

  private reconnect (socket: WebSocket): void {
    if (this.socket !== socket) return
    this.socket = undefined
    for (const sub of this.subs.values()) delete sub.id
    if (this.closed || this.subs.size === 0) return
    const wait = Math.min(MAX_WAIT_MS, 1000 * 2 ** this.attempts++) * (0.75 + Math.random() / 2)
    this.retry = setTimeout(() => { this.connect() }, wait)
  }

  private sendSubscribe (sub: Subscription): void {
    this.send({ action: 'subscribe', ref: sub.ref, ...sub.filter })
  }

  private send (command: Record<string, unknown>): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(command))
  }

  private receive (data: unknown): void {
    let e: StreamEvent
    try { e = JSON.parse(String(data)) as StreamEvent } catch { return }
    if (e.event === 'subscribed' || e.event === 'error') {
      const sub = e.ref === undefined ? undefined : this.subs.get(e.ref)
      if (sub === undefined) return
      if (e.event === 'subscribed' && typeof e.subscription === 'string') sub.id = e.subscription
      else deliver(sub, e)
      return
    }
    for (const sub of this.subs.values()) if (follows(sub.filter, e)) deliver(sub, e)
  }
}

function deliver (sub: Subscription, e: StreamEvent): void {
  try { (sub.onEvent as (e: StreamEvent) => void)(e) } catch (err) { console.error('stream subscriber failed', err) }
}

function follows (filter: StreamFilter, e: StreamEvent): boolean {
  const uidsOf = (v: unknown): unknown[] | undefined => (v as { uids?: unknown[] } | undefined)?.uids
  if (SYSTEM_EVENTS.has(e.event)) {
    if (filter.systems === undefined) return false
    const uids = uidsOf(filter.systems)
    if (uids !== undefined && !uids.includes(e.system)) return false
    const dataIds = filter.dataIds as unknown[] | undefined
    return e.event !== 'points' || dataIds === undefined || dataIds.length === 0 || dataIds.includes(e.dataId)
  }
  if (e.event === 'operation') {
    if (filter.operations === undefined) return false
    const uids = uidsOf(filter.operations)
    return uids === undefined || uids.includes(e.uid)
  }
  return false
}
