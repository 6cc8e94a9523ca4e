// The configuration of users' access: sign-in throttling, password hashes, tokens and the API's rate limit, and the
// first company, administrator and API client a new store is given.

export interface AccessConfig {
  /** Sign-in throttling: failed tries on one account (or API client) from one address before the first wait. */
  LOGIN_THROTTLE_FAILURES: number
  /**
   * Sign-in throttling: failed tries on one account (or API client) from all addresses together before the first
   * wait; much higher than LOGIN_THROTTLE_FAILURES, so that guesses from elsewhere do not keep the owner out.
   */
  LOGIN_THROTTLE_ACCOUNT_FAILURES: number
  /** Sign-in throttling: failed tries from one client address before the first wait (many users may share one). */
  LOGIN_THROTTLE_ADDRESS_FAILURES: number
  /** Sign-in throttling: the first wait (ms); each further failure doubles it, up to 15 minutes. */
  LOGIN_THROTTLE_BASE_MS: number
  /**
   * scrypt cost of the password and client secret hashes (log2 N; docs/api.md#get-a-token): 15 by default,
   * about 50 ms a check. Each hash records its cost, so a change applies to hashes written after it.
   */
  PASSWORD_HASH_COST: number
  TOKEN_TTL_S: number
  REFRESH_TOKEN_TTL_S: number
  RATE_LIMIT_PER_S: number
  FLEET_COMPANY_NAME: string
  FLEET_ADMIN_EMAIL: string
  FLEET_ADMIN_PASSWORD: string | undefined
  FLEET_CLIENT_ID: string
  FLEET_CLIENT_SECRET: string | undefined
}
