// Where raised alerts go once committed (decision 0032, "After the commit"): the ingest and the periodic check call it
// with the uids of the alerts they raised, the pending sweep with those still waiting for their delivery.

/** Passes the alerts on (queues their notification); the uids may repeat those of an earlier call. */
export type AlertsRaised = (alertUids: readonly string[]) => Promise<void>
