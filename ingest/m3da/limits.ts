// Bounds of the M3DA transport (issue 10: "a max envelope size"; protocols.md §2.8.4 DoS guidance).

/** Largest envelope accepted, TCP or HTTP: a 1 MiB payload (the other device protocols' bound) and its header. */
export const MAX_ENVELOPE_BYTES = 1024 * 1024 + 4096

/** A TCP connection silent this long is closed (the agent waits 60 s for a reply and reconnects for each session). */
export const IDLE_MS = 5 * 60_000
