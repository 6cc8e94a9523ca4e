// The API clients' port (OAuth clients).

export interface ApiClientRecord {
  clientId: string
  /** Null for a public client (the web console): it may use the authorization_code grant with PKCE only. */
  secretHash: string | null
  name: string
  userUid: string | null
  /** Where the authorization_code grant may send its codes (exact match). */
  redirectUris: string[]
  /**
   * May use the implicit grant (response_type=token: an access token in the redirect's fragment); absent: false. Only
   * a client registered for it, since a token in a URL can leak where a code, useless without the client, cannot.
   */
  implicitGrant?: boolean
}

export interface ApiClientsRepository {
  find (clientId: string): Promise<ApiClientRecord | undefined>
  /** Creates the client or updates its secret, name and owner. */
  put (c: ApiClientRecord, createdAt: number): Promise<void>
  count (): Promise<number>
}
