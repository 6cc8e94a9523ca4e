// The live stream's hub: one subscription to the event bus for all the streams of this process, taken
// while at least one is open (so that publishers skip their events when none is: EventBus.listening), and the
// streams indexed by company, so that an event is offered only to the streams of the company it belongs to.
import type { Clock } from '../../ports/store.js'
import type { EventBus, FleetEvent } from '../../ports/events.js'
import type { Repositories } from '../../ports/repositories.js'
import { noMetrics, type MetricsRegistry } from '../../metrics.js'
import { createStreamSession, type ServerMessage, type StreamAccess, type StreamSession } from './stream-session.js'

export interface StreamServiceDeps {
  repos: Pick<Repositories, 'systems' | 'operations'>
  events: EventBus | undefined
  clock: Clock
  metrics?: MetricsRegistry | undefined
}

/** Why the service closed a stream (docs/stream.md, Closing). */
export type StreamCloseReason = 'invalid_token' | 'forbidden' | 'slow_client' | 'error'

export function createStreamService ({ repos, events, metrics = noMetrics }: StreamServiceDeps) {
  const byCompany = new Map<string, Set<StreamSession>>()
  let open = 0
  metrics.gauge({ name: 'fleet_stream_connections', help: 'Live streams open in this process (GET /api/v1/stream)', collect: () => [{ value: open }] })
  const closes = metrics.counter<'reason'>({ name: 'fleet_stream_closed_total', help: 'Live streams the service closed, by reason', labels: ['reason'] })
  let listening: Promise<() => void> | undefined

  function dispatch (e: FleetEvent): void {
    for (const s of byCompany.get(e.company) ?? []) s.deliver(e)
  }

  function index (s: StreamSession, add: boolean): void {
    const set = byCompany.get(s.companyUid) ?? new Set<StreamSession>()
    if (add) set.add(s)
    else set.delete(s)
    if (set.size === 0) byCompany.delete(s.companyUid)
    else byCompany.set(s.companyUid, set)
  }

  function release (): void {
    if (--open > 0 || listening === undefined) return
    const stop = listening
    listening = undefined
    stop.then((off) => { off() }).catch(() => {})
  }

  /**
   * Opens a stream in the context company; resolves once it hears every event committed after. `send` gets the
   * server messages (the API layer writes them to the socket, bounded).
   */
  async function openStream (access: StreamAccess, send: (m: ServerMessage) => void) {
    const session = createStreamSession({ systems: repos.systems, operations: repos.operations }, access, send)
    open++
    index(session, true)
    const attempt = events === undefined ? undefined : (listening ??= events.subscribe(dispatch))
    try {
      await attempt
    } catch (err) {
      // A bus that failed to subscribe (Redis unreachable) is tried again by the next stream.
      if (listening === attempt) listening = undefined
      index(session, false)
      release()
      throw err
    }
    let closed = false
    return {
      session,
      /** The rights or the company access changed: the session is indexed again under what it now is. */
      setAccess (next: StreamAccess): void {
        index(session, false)
        session.setAccess(next)
        if (!closed) index(session, true)
      },
      close (): void {
        if (closed) return
        closed = true
        index(session, false)
        release()
      }
    }
  }

  return {
    open: openStream,
    streams: (): number => open,
    /** Counts a stream the service closed (the API layer closes the socket). */
    closedBy: (reason: StreamCloseReason): void => { closes.inc({ reason }) }
  }
}

export type StreamService = ReturnType<typeof createStreamService>
