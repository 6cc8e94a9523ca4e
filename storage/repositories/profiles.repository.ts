import type { Queryable } from '../../core/ports/store.js'
import type { ProfilesRepository } from '../../core/ports/profiles.js'
import type { Profile } from '../../core/domain/user.js'

interface ProfileRow { uid: string, company_uid: string, name: string, rights: string[] }

const toProfile = (r: ProfileRow): Profile => ({ uid: r.uid, companyUid: r.company_uid, name: r.name, rights: r.rights })

export function createProfilesRepository (q: Queryable): ProfilesRepository {
  return {
    async findByUid (companyUid, uid) {
      const { rows } = await q.query<ProfileRow>('SELECT * FROM profiles WHERE company_uid = $1 AND uid = $2', [companyUid, uid])
      return rows[0] === undefined ? undefined : toProfile(rows[0])
    },
    async findByName (companyUid, name) {
      const { rows } = await q.query<ProfileRow>('SELECT * FROM profiles WHERE company_uid = $1 AND name = $2', [companyUid, name])
      return rows[0] === undefined ? undefined : toProfile(rows[0])
    },
    async insert (p) {
      await q.query('INSERT INTO profiles (uid, company_uid, name, rights) VALUES ($1, $2, $3, $4)',
        [p.uid, p.companyUid, p.name, p.rights])
    },
    async updateRights (uid, rights) {
      await q.query('UPDATE profiles SET rights = $2 WHERE uid = $1', [uid, rights])
    }
  }
}
