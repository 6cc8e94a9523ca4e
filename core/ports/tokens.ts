// The OAuth tokens' and authorization codes' port.

export interface TokenRecord {
  hash: string
  kind: 'access' | 'refresh'
  clientId: string
  userUid: string | null
  /** The other token of the pair issued together (the refresh token of an access token and back). */
  pairHash: string | null
  /** Shared by every token issued from one grant and the refreshes after it (RFC 9700 §4.14.2). */
  family: string
  /** When a refresh token was exchanged; null while unused (and for access tokens). */
  usedAt: number | null
  expiresAt: number
}

export interface TokensRepository {
  /**
   * Inserts the tokens in one statement. With `parent`, only while that token still exists, holding it meanwhile: a
   * revocation of the family (revokeFamily) that runs at the same time either comes first, and nothing is inserted
   * (false), or removes these too.
   */
  insertAll (tokens: Array<Omit<TokenRecord, 'usedAt'>>, createdAt: number, parent?: string): Promise<boolean>
  find (hash: string): Promise<TokenRecord | undefined>
  /** Deletes the token and its pair. */
  revoke (hash: string): Promise<void>
  /**
   * Marks an unused refresh token used and deletes the access token issued with it; false when it was used already
   * (also by a concurrent request): a replay.
   */
  markUsed (hash: string, now: number): Promise<boolean>
  /** Deletes every token of the family, also those an insertAll running at the same time adds; answers their hashes. */
  revokeFamily (family: string): Promise<string[]>
  deleteExpired (now: number): Promise<number>
  insertCode (c: AuthorizationCode, createdAt: number): Promise<void>
  /** Deletes the code and answers it: a code is used at most once, even by concurrent token requests. */
  takeCode (hash: string): Promise<AuthorizationCode | undefined>
}

export interface AuthorizationCode {
  hash: string
  clientId: string
  userUid: string
  redirectUri: string
  expiresAt: number
  /** The PKCE challenge (RFC 7636, S256) given at /api/oauth/authorize; null when the client sent none. */
  codeChallenge: string | null
}
