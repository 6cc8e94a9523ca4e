import type { Queryable } from '../../core/ports.js'
import type { AuthorizationCode, TokenRecord, TokensRepository } from '../../core/repositories.js'

interface TokenRow {
  hash: string
  kind: 'access' | 'refresh'
  client_id: string
  user_uid: string | null
  pair_hash: string | null
  expires_at: number
}

const toToken = (r: TokenRow): TokenRecord => ({
  hash: r.hash, kind: r.kind, clientId: r.client_id, userUid: r.user_uid, pairHash: r.pair_hash, expiresAt: r.expires_at
})

export function createTokensRepository (q: Queryable): TokensRepository {
  return {
    async insert (t, createdAt) {
      await q.query(
        `INSERT INTO tokens (hash, kind, client_id, user_uid, pair_hash, expires_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [t.hash, t.kind, t.clientId, t.userUid, t.pairHash, t.expiresAt, createdAt])
    },
    async find (hash) {
      const { rows } = await q.query<TokenRow>('SELECT * FROM tokens WHERE hash = $1', [hash])
      return rows[0] === undefined ? undefined : toToken(rows[0])
    },
    async insertCode (c, createdAt) {
      await q.query(
        'INSERT INTO oauth_codes (hash, client_id, user_uid, redirect_uri, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [c.hash, c.clientId, c.userUid, c.redirectUri, c.expiresAt, createdAt])
    },
    async takeCode (hash) {
      const { rows } = await q.query<{ hash: string, client_id: string, user_uid: string, redirect_uri: string, expires_at: number }>(
        'DELETE FROM oauth_codes WHERE hash = $1 RETURNING hash, client_id, user_uid, redirect_uri, expires_at', [hash])
      const r = rows[0]
      return r === undefined ? undefined : { hash: r.hash, clientId: r.client_id, userUid: r.user_uid, redirectUri: r.redirect_uri, expiresAt: Number(r.expires_at) } satisfies AuthorizationCode
    },
    async revoke (hash) {
      await q.query('DELETE FROM tokens WHERE hash = $1 OR pair_hash = $1', [hash])
    },
    async deleteExpired (now) {
      const codes = (await q.query('DELETE FROM oauth_codes WHERE expires_at <= $1', [now])).rowCount
      return (await q.query('DELETE FROM tokens WHERE expires_at <= $1', [now])).rowCount + codes
    }
  }
}
