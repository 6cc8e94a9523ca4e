// The sign-in unlocks' port.

/**
 * When an administrator last cleared an account's sign-in counters (`fleet admin unlock`, login-throttle.ts), by the
 * account's hash: the counters of the account are keyed by it, so every process starts them afresh.
 */
export interface SignInUnlocksRepository {
  unlockedAt (accountHash: string): Promise<number | undefined>
  unlock (accountHash: string, at: number): Promise<void>
}
