// What the Sparkplug B host needs from the store (sparkplug.repository.ts implements it).

export interface SparkplugRepository {
  /**
   * An edge node died (an NDEATH whose bdSeq matched its NBIRTH, docs/protocols/sparkplug.md): its system's commStatus
   * becomes ERROR and data.lastCommFailureDate the time of death (docs/devices.md: commStatus follows communication).
   */
  nodeDied (systemUid: string, at: number): Promise<void>
}
