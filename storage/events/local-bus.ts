import type { EventBus, EventListener, FleetEvent } from '../../core/ports/events.js'

/** Deliveries to one listener that throw are reported here (the composition root logs them). */
export type ListenerFailure = (err: unknown) => void

/**
 * Calls every listener with each event, off the publisher's path: the commit that published goes on at once (the
 * ingest acknowledges devices after it) and the streams do their work on a later turn of the loop.
 */
export function deliverLater<E> (listeners: ReadonlySet<EventListener<E>>, events: readonly E[], onFailure: ListenerFailure): void {
  if (listeners.size === 0 || events.length === 0) return
  setImmediate(() => {
    for (const event of events) {
      for (const listener of listeners) {
        try { listener(event) } catch (err) { onFailure(err) }
      }
    }
  })
}

/** The events of this process only (the embedded mode, docs/architecture.md: one process by default). */
export function createLocalEventBus<E = FleetEvent> (onFailure: ListenerFailure = () => {}): EventBus<E> {
  const listeners = new Set<EventListener<E>>()
  return {
    publish (events) { deliverLater(listeners, events, onFailure) },
    async subscribe (listener) {
      // A listener added twice is still two subscriptions: each remover takes back its own.
      const own: EventListener<E> = (e) => { listener(e) }
      listeners.add(own)
      return () => { listeners.delete(own) }
    },
    listening: () => listeners.size > 0,
    async close () { listeners.clear() }
  }
}
