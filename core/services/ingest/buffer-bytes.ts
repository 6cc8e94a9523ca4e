// The ingest buffer's bound in bytes (INGEST_BUFFER_BYTES, docs/security.md#device-limits). The group commit bounds its
// items by count, and its callers wait when it is full: that kept memory bounded for small messages, but 150
// messages of 1 MiB took the process from 0.6 to 2.5 GB, and every device waited behind the one that filled it.
// Counted in bytes, a full buffer refuses at once instead, as a store that is unavailable does: the device is not
// acknowledged and sends the message again.
import { FleetError } from '../../errors.js'
import type { DeviceMessage } from '../../domain/device-message.js'

// What a decoded message holds in memory beside its strings: the message object, and per point its object and the
// row written from it (heap measured after a forced GC: about 190 bytes for a numeric point and its row). Strings
// count two bytes a character.
const MESSAGE_OVERHEAD = 256
const POINT_OVERHEAD = 192

/** The approximate memory a message takes while it waits for its commit. */
export function messageBytes (m: DeviceMessage): number {
  let n = MESSAGE_OVERHEAD + 2 * m.uid.length
  for (const p of m.points) n += POINT_OVERHEAD + 2 * p.dataId.length + (typeof p.value === 'string' ? 2 * p.value.length : 0)
  return n
}

/** The refusal of a message while the buffer is full: answered like a store that is unavailable (REST 503). */
export function bufferFull (): FleetError {
  return new FleetError('service.unavailable', ['the ingest buffer is full; send again later'])
}

export const isBufferFull = (err: unknown): boolean =>
  err instanceof FleetError && err.code === 'service.unavailable' && err.params[0]?.startsWith('the ingest buffer is full') === true

/** Bytes waiting for their commit, all devices together, against the bound. */
export function createBufferBytes (max: number) {
  let held = 0
  return {
    /**
     * Takes room for `bytes`; false when the buffer is full. A message alone in the buffer is always taken, so that
     * one larger than the bound is not refused forever.
     */
    take (bytes: number): boolean {
      if (held > 0 && held + bytes > max) return false
      held += bytes
      return true
    },
    release (bytes: number): void { held = Math.max(0, held - bytes) },
    held: () => held
  }
}
