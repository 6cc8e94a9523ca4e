import type { Queryable } from '../../core/ports/store.js'
import type { MembershipsRepository } from '../../core/ports/memberships.js'
import type { Membership } from '../../core/domain/user.js'
import { toUser, type UserRow } from './users.repository.js'

interface MembershipRow {
  user_uid: string
  company_uid: string
  company_name: string
  administrator: boolean
  profile_uid: string | null
  profile_name: string | null
  profile_rights: string[] | null
}

const SELECT = `SELECT m.user_uid, m.company_uid, c.name AS company_name, m.administrator,
    p.uid AS profile_uid, p.name AS profile_name, p.rights AS profile_rights
  FROM memberships m JOIN companies c ON c.uid = m.company_uid LEFT JOIN profiles p ON p.uid = m.profile_uid`

function toMembership (r: MembershipRow): Membership {
  return {
    userUid: r.user_uid,
    companyUid: r.company_uid,
    companyName: r.company_name,
    administrator: r.administrator,
    profile: r.profile_uid === null
      ? null
      : { uid: r.profile_uid, name: r.profile_name ?? '', companyUid: r.company_uid, rights: r.profile_rights ?? [] }
  }
}

export function createMembershipsRepository (q: Queryable): MembershipsRepository {
  return {
    async forUser (userUid) {
      const { rows } = await q.query<MembershipRow>(`${SELECT} WHERE m.user_uid = $1`, [userUid])
      return rows.map(toMembership)
    },
    async get (userUid, companyUid) {
      const { rows } = await q.query<MembershipRow>(`${SELECT} WHERE m.user_uid = $1 AND m.company_uid = $2`, [userUid, companyUid])
      return rows[0] === undefined ? undefined : toMembership(rows[0])
    },
    async put (userUid, companyUid, profileUid, administrator) {
      await q.query(
        `INSERT INTO memberships (user_uid, company_uid, profile_uid, administrator) VALUES ($1, $2, $3, $4)
         ON CONFLICT (user_uid, company_uid) DO UPDATE SET profile_uid = EXCLUDED.profile_uid,
           administrator = EXCLUDED.administrator`,
        [userUid, companyUid, profileUid, administrator])
    },
    async setProfile (userUid, companyUid, profileUid) {
      await q.query('UPDATE memberships SET profile_uid = $3 WHERE user_uid = $1 AND company_uid = $2',
        [userUid, companyUid, profileUid])
    },
    async remove (userUid, companyUid) {
      const res = await q.query('DELETE FROM memberships WHERE user_uid = $1 AND company_uid = $2', [userUid, companyUid])
      return res.rowCount > 0
    },
    async administrators (companyUid) {
      const { rows } = await q.query<UserRow & { has_profile: boolean }>(
        `SELECT u.*, m.profile_uid IS NOT NULL AS has_profile FROM memberships m JOIN users u ON u.uid = m.user_uid
         WHERE m.company_uid = $1 AND m.administrator ORDER BY u.email`, [companyUid])
      return rows.map((r) => ({ ...toUser(r), hasProfile: r.has_profile }))
    },
    async members (companyUid, userUids) {
      const { rows } = await q.query<MembershipRow & UserRow>(
        `SELECT m.user_uid, m.company_uid, c.name AS company_name, m.administrator, p.uid AS profile_uid,
           p.name AS profile_name, p.rights AS profile_rights, u.*
         FROM memberships m JOIN companies c ON c.uid = m.company_uid JOIN users u ON u.uid = m.user_uid
         LEFT JOIN profiles p ON p.uid = m.profile_uid
         WHERE m.company_uid = $1 AND m.user_uid = ANY($2::text[])`, [companyUid, userUids])
      return rows.map((r) => ({ ...toMembership(r), user: toUser(r) }))
    },
    async setAdministrators (companyUid, userUids) {
      await q.query('UPDATE memberships SET administrator = (user_uid = ANY($2::text[])) WHERE company_uid = $1',
        [companyUid, userUids])
    }
  }
}
