// Device credentials in an external MQTT broker (docs/cluster.md#external-mqtt-broker-ingest): declared here,
// implemented in ingest/broker-sync/ (Mosquitto dynamic security) and storage/repositories/, wired in bin/. core/ never
// knows which broker holds them.

/** One device login of a system as a broker must know it (docs/devices.md: serial number or IMEI). */
export interface BrokerLogin {
  systemUid: string
  /** The MQTT username: the gateway's serial number or IMEI. */
  identifier: string
  /**
   * communication.mqtt.password, stored as given (the broker is given the same); null: a login by certificate only
   * (its application asks for x509, or it has no password and a certificate the broker trusts names it), which the
   * broker holds without a password so that no password logs it in (docs/cluster.md#device-certificates-with-the-external-broker).
   */
  password: string | null
}

/** The device logins the broker must hold, read from the store. */
export interface BrokerLoginsRepository {
  /**
   * The logins of these systems that can log in to the broker: by their MQTT password, or by certificate where the
   * broker trusts certificates (a system with neither cannot log in over MQTT).
   */
  ofSystems (systemUids: readonly string[]): Promise<BrokerLogin[]>
  /** Every login, a page of systems at a time, by system uid after `after` ('' for the first page). */
  page (after: string, systems: number): Promise<{ logins: BrokerLogin[], last: string | undefined }>
}

/**
 * Told once a transaction that may have changed device logins (a system created, edited, deleted or transferred)
 * is committed. Resolves once the broker holds the change, or once it failed: it never rejects, a failure is retried
 * in the background and `fleet broker sync` repairs what a stopped process left undone.
 */
export interface DeviceCredentialsSync {
  changed (systemUids: readonly string[]): Promise<void>
  close (): Promise<void>
}
