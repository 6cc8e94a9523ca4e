import type { Queryable } from '../../core/ports/store.js'
import type { ApiClientRecord, ApiClientsRepository } from '../../core/ports/api-clients.js'

interface ClientRow { client_id: string, secret_hash: string | null, name: string, user_uid: string | null, redirect_uris: string[] | null, implicit_grant: boolean }

const toClient = (r: ClientRow): ApiClientRecord =>
  ({ clientId: r.client_id, secretHash: r.secret_hash, name: r.name, userUid: r.user_uid, redirectUris: r.redirect_uris ?? [], implicitGrant: r.implicit_grant })

export function createApiClientsRepository (q: Queryable): ApiClientsRepository {
  return {
    async find (clientId) {
      const { rows } = await q.query<ClientRow>('SELECT * FROM api_clients WHERE client_id = $1', [clientId])
      return rows[0] === undefined ? undefined : toClient(rows[0])
    },
    async put (c, createdAt) {
      await q.query(
        `INSERT INTO api_clients (client_id, secret_hash, name, user_uid, created_at, redirect_uris, implicit_grant) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (client_id) DO UPDATE SET secret_hash = EXCLUDED.secret_hash, name = EXCLUDED.name,
           user_uid = EXCLUDED.user_uid, redirect_uris = EXCLUDED.redirect_uris, implicit_grant = EXCLUDED.implicit_grant`,
        [c.clientId, c.secretHash, c.name, c.userUid, createdAt, c.redirectUris, c.implicitGrant ?? false])
    },
    async count () {
      const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM api_clients')
      return rows[0]?.n ?? 0
    }
  }
}
