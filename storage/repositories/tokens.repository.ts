import type { Queryable } from '../../core/ports/store.js'
import type { AuthorizationCode, TokenRecord, TokensRepository } from '../../core/ports/tokens.js'

interface TokenRow {
  hash: string
  kind: 'access' | 'refresh'
  client_id: string
  user_uid: string | null
  pair_hash: string | null
  family: string
  used_at: number | null
  expires_at: number
}

const toToken = (r: TokenRow): TokenRecord => ({
  hash: r.hash,
  kind: r.kind,
  clientId: r.client_id,
  userUid: r.user_uid,
  pairHash: r.pair_hash,
  family: r.family,
  usedAt: r.used_at === null ? null : Number(r.used_at),
  expiresAt: Number(r.expires_at)
})

export function createTokensRepository (q: Queryable): TokensRepository {
  return {
    async insertAll (tokens, createdAt, parent) {
      const params: unknown[] = [createdAt]
      const rows = tokens.map((t) => {
        const at = params.push(t.hash, t.kind, t.clientId, t.userUid, t.pairHash, t.family, t.expiresAt)
        return `($${at - 6}, $${at - 5}, $${at - 4}, $${at - 3}, $${at - 2}, $${at - 1}, $${at}::bigint, $1::bigint)`
      })
      const columns = 'hash, kind, client_id, user_uid, pair_hash, family, expires_at, created_at'
      if (parent === undefined) {
        await q.query(`INSERT INTO tokens (${columns}) VALUES ${rows.join(', ')}`, params)
        return true
      }
      // FOR UPDATE: a revokeFamily deleting the parent waits for this insert and then deletes its rows too.
      const at = params.push(parent)
      const { rowCount } = await q.query(
        `WITH parent AS (SELECT hash FROM tokens WHERE hash = $${at} FOR UPDATE)
         INSERT INTO tokens (${columns})
         SELECT v.* FROM (VALUES ${rows.join(', ')}) AS v (${columns}) WHERE EXISTS (SELECT 1 FROM parent)`, params)
      return rowCount === tokens.length
    },
    async find (hash) {
      const { rows } = await q.query<TokenRow>('SELECT * FROM tokens WHERE hash = $1', [hash])
      return rows[0] === undefined ? undefined : toToken(rows[0])
    },
    async insertCode (c, createdAt) {
      await q.query(
        'INSERT INTO oauth_codes (hash, client_id, user_uid, redirect_uri, expires_at, created_at, code_challenge) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [c.hash, c.clientId, c.userUid, c.redirectUri, c.expiresAt, createdAt, c.codeChallenge])
    },
    async takeCode (hash) {
      const { rows } = await q.query<{ hash: string, client_id: string, user_uid: string, redirect_uri: string, expires_at: number, code_challenge: string | null }>(
        'DELETE FROM oauth_codes WHERE hash = $1 RETURNING hash, client_id, user_uid, redirect_uri, expires_at, code_challenge', [hash])
      const r = rows[0]
      return r === undefined
        ? undefined
        : { hash: r.hash, clientId: r.client_id, userUid: r.user_uid, redirectUri: r.redirect_uri, expiresAt: Number(r.expires_at), codeChallenge: r.code_challenge } satisfies AuthorizationCode
    },
    async revoke (hash) {
      await q.query('DELETE FROM tokens WHERE hash = $1 OR pair_hash = $1', [hash])
    },
    async markUsed (hash, now) {
      // One statement: of two concurrent exchanges of one refresh token, exactly one finds it unused.
      const { rows } = await q.query(
        `WITH used AS (
           UPDATE tokens SET used_at = $2 WHERE hash = $1 AND kind = 'refresh' AND used_at IS NULL RETURNING pair_hash
         ), paired AS (
           DELETE FROM tokens WHERE kind = 'access' AND hash IN (SELECT pair_hash FROM used)
         )
         SELECT 1 AS used FROM used`, [hash, now])
      return rows.length === 1
    },
    async revokeFamily (family) {
      // Twice: the first statement waits for an insertAll holding one of the family's tokens, and does not see what
      // it inserted (its snapshot is older); the second one does (PostgreSQL's read committed isolation).
      const hashes: string[] = []
      for (let i = 0; i < 2; i++) {
        const { rows } = await q.query<{ hash: string }>('DELETE FROM tokens WHERE family = $1 RETURNING hash', [family])
        hashes.push(...rows.map((r) => r.hash))
      }
      return hashes
    },
    async deleteExpired (now) {
      const codes = (await q.query('DELETE FROM oauth_codes WHERE expires_at <= $1', [now])).rowCount
      return (await q.query('DELETE FROM tokens WHERE expires_at <= $1', [now])).rowCount + codes
    }
  }
}
