// Bounds of the M3DA transport ("a max envelope size"; docs/protocols/m3da.md DoS guidance).

/** Largest envelope accepted, TCP or HTTP: a 1 MiB payload (the other device protocols' bound) and its header. */
export const MAX_ENVELOPE_BYTES = 1024 * 1024 + 4096

/** A TCP connection silent this long is closed (the agent waits 60 s for a reply and reconnects for each session). */
export const IDLE_MS = 5 * 60_000

/**
 * A connection is in session this long after its last authentic package: tasks committed meanwhile are handed to it
 * for its next reply (push) instead of an SMS wake-up, and past it the connection asks the store again for its tasks
 * (which also marks the system as communicating). The agent's own session timeout is 60 s (docs/protocols/m3da.md).
 */
export const SESSION_MS = 60_000
