// LwM2M device state (lwm2m.port.ts; migrations/0043_lwm2m_registrations.sql; the installs: installs.repository.ts).
import type { Queryable } from '../../core/ports/store.js'
import type { Communication } from '../../core/domain/system.js'
import type { Lwm2mRegistration, Lwm2mRepository } from './lwm2m.port.js'
import { createInstallsRepository } from './installs.repository.js'

interface Row {
  id: string
  system_uid: string
  endpoint: string
  lifetime_s: string | number
  binding: string
  queue_mode: boolean
  version: string
  object_links: string
  peer: string
  secure: boolean
  psk_identity: string | null
  registered_at: string | number
  updated_at: string | number
  expires_at: string | number
}

const toRegistration = (r: Row): Lwm2mRegistration => ({
  id: r.id,
  systemUid: r.system_uid,
  endpoint: r.endpoint,
  lifetimeS: Number(r.lifetime_s),
  binding: r.binding,
  queueMode: r.queue_mode,
  version: r.version,
  objectLinks: r.object_links,
  peer: r.peer,
  secure: r.secure,
  pskIdentity: r.psk_identity,
  registeredAt: Number(r.registered_at),
  updatedAt: Number(r.updated_at),
  expiresAt: Number(r.expires_at)
})

export function createLwm2mRepository (q: Queryable): Lwm2mRepository {
  return {
    ...createInstallsRepository(q),
    async register (r) {
      // A system deleted meanwhile is skipped (the join), never a foreign-key failure.
      await q.query(
        `INSERT INTO lwm2m_registrations (id, system_uid, endpoint, lifetime_s, binding, queue_mode, version, object_links,
           peer, secure, psk_identity, registered_at, updated_at, expires_at)
         SELECT $1, s.uid, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14 FROM systems s WHERE s.uid = $2
         ON CONFLICT (system_uid) DO UPDATE SET id = EXCLUDED.id, endpoint = EXCLUDED.endpoint, lifetime_s = EXCLUDED.lifetime_s,
           binding = EXCLUDED.binding, queue_mode = EXCLUDED.queue_mode, version = EXCLUDED.version,
           object_links = EXCLUDED.object_links, peer = EXCLUDED.peer, secure = EXCLUDED.secure,
           psk_identity = EXCLUDED.psk_identity, registered_at = EXCLUDED.registered_at, updated_at = EXCLUDED.updated_at,
           expires_at = EXCLUDED.expires_at`,
        [r.id, r.systemUid, r.endpoint, r.lifetimeS, r.binding, r.queueMode, r.version, r.objectLinks, r.peer, r.secure,
          r.pskIdentity, r.registeredAt, r.updatedAt, r.expiresAt])
    },
    async update (id, u) {
      const { rows } = await q.query<Row>(
        `UPDATE lwm2m_registrations SET lifetime_s = coalesce($2, lifetime_s), binding = coalesce($3, binding),
           queue_mode = coalesce($4, queue_mode), object_links = coalesce($5, object_links), peer = $6, updated_at = $7,
           expires_at = $7 + coalesce($2, lifetime_s) * 1000
         WHERE id = $1 RETURNING *`,
        [id, u.lifetimeS ?? null, u.binding ?? null, u.queueMode ?? null, u.objectLinks ?? null, u.peer, u.at])
      return rows[0] === undefined ? undefined : toRegistration(rows[0])
    },
    async find (id) {
      const { rows } = await q.query<Row>('SELECT * FROM lwm2m_registrations WHERE id = $1', [id])
      return rows[0] === undefined ? undefined : toRegistration(rows[0])
    },
    async remove (id) {
      const { rows } = await q.query<Row>('DELETE FROM lwm2m_registrations WHERE id = $1 RETURNING *', [id])
      return rows[0] === undefined ? undefined : toRegistration(rows[0])
    },
    async expire (now, limit) {
      const { rows } = await q.query<Row>(
        `DELETE FROM lwm2m_registrations WHERE id IN (
           SELECT id FROM lwm2m_registrations WHERE expires_at < $1 ORDER BY expires_at LIMIT $2) RETURNING *`, [now, limit])
      return rows.map(toRegistration)
    },
    async systemsByPskIdentity (identity) {
      const { rows } = await q.query<{ uid: string, communication: Communication | null }>(
        "SELECT uid, communication FROM systems WHERE communication -> 'lwm2m' ->> 'pskIdentity' = $1 LIMIT 2", [identity])
      return rows.map((r) => ({ systemUid: r.uid, communication: r.communication ?? {} }))
    }
  }
}
