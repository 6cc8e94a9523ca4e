// The M3DA state of devices (m3da.repository.ts implements it over migrations/0016_m3da_sessions.sql): what the security
// extension keeps between sessions (docs/protocols/m3da.md: nonces persist across sessions and restarts) and the tickets
// that tie a device's Responses to its tasks (§2.7).

export interface M3daRepository {
  /** The nonce the device's next authenticated envelope must be signed with; null when none was ever agreed. */
  nonce (systemUid: string): Promise<Buffer | null>
  /** Records the nonces the service announced, one per system (only after a successful authentication, §2.8.3). */
  setNonces (nonces: ReadonlyArray<{ systemUid: string, nonce: Buffer }>, now: number): Promise<void>
  /**
   * The ticket of each task, given out once per task and kept when the task is sent again (the device ignores a
   * ticket it already ran). Tickets are positive int32, counted per system.
   */
  tickets (systemUid: string, taskUids: readonly string[], now: number): Promise<Map<string, number>>
  /** The tasks these tickets were given to (unknown tickets are left out). */
  tasksOf (systemUid: string, tickets: readonly number[]): Promise<Map<number, string>>
  /** Forgets answered tickets. */
  release (systemUid: string, tickets: readonly number[]): Promise<void>
  /** Stores the password agreed by auto-registration as the system's communication.m3da.password (§2.8.6). */
  setPassword (systemUid: string, password: string): Promise<void>
}
