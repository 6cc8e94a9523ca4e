import type { Queryable } from '../../core/ports/store.js'
import type { UsersRepository } from '../../core/ports/users.js'
import type { UserRecord, UserSort } from '../../core/domain/user.js'

export interface UserRow {
  uid: string
  email: string
  name: string
  phone_number: string | null
  password_hash: string | null
  company_uid: string
}

export const toUser = (r: UserRow): UserRecord => ({
  uid: r.uid,
  email: r.email,
  name: r.name,
  phoneNumber: r.phone_number,
  passwordHash: r.password_hash,
  companyUid: r.company_uid
})

const SORT_COLUMNS: Record<UserSort, string> = { name: 'u.name', email: 'u.email', profile: 'p.name' }

/** Escapes LIKE wildcards so that `like` filters mean "contains" (docs/api.md#using-the-api). */
export function containsPattern (s: string): string {
  return '%' + s.replace(/[\\%_]/g, (c) => '\\' + c) + '%'
}

export function createUsersRepository (q: Queryable): UsersRepository {
  return {
    async findByUid (uid) {
      const { rows } = await q.query<UserRow>('SELECT * FROM users WHERE uid = $1', [uid])
      return rows[0] === undefined ? undefined : toUser(rows[0])
    },
    async findByEmail (email) {
      const { rows } = await q.query<UserRow>('SELECT * FROM users WHERE lower(email) = lower($1)', [email])
      return rows[0] === undefined ? undefined : toUser(rows[0])
    },
    async insert (u, createdAt) {
      await q.query(
        `INSERT INTO users (uid, email, name, phone_number, password_hash, company_uid, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [u.uid, u.email, u.name, u.phoneNumber, u.passwordHash, u.companyUid, createdAt])
    },
    async update (uid, patch) {
      const cols: Record<string, string> = { name: 'name', phoneNumber: 'phone_number', passwordHash: 'password_hash' }
      const sets: string[] = []
      const params: unknown[] = [uid]
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined || cols[k] === undefined) continue
        params.push(v)
        sets.push(`${cols[k]} = $${params.length}`)
      }
      if (sets.length > 0) await q.query(`UPDATE users SET ${sets.join(', ')} WHERE uid = $1`, params)
    },
    async find (filter, sort, page) {
      const where = ['m.company_uid = $1']
      const params: unknown[] = [filter.companyUid]
      const add = (sql: (n: string) => string, value: unknown): void => {
        params.push(value)
        where.push(sql(`$${params.length}`))
      }
      if (filter.uid !== undefined) add((p) => `u.uid = ${p}`, filter.uid)
      if (filter.email !== undefined) add((p) => `u.email ILIKE ${p}`, containsPattern(filter.email))
      if (filter.name !== undefined) add((p) => `u.name ILIKE ${p}`, containsPattern(filter.name))
      if (filter.profile !== undefined) add((p) => `m.profile_uid = ${p}`, filter.profile)
      if (filter.freetext !== undefined) add((p) => `(u.email ILIKE ${p} OR u.name ILIKE ${p})`, containsPattern(filter.freetext))
      const from = `FROM users u JOIN memberships m ON m.user_uid = u.uid LEFT JOIN profiles p ON p.uid = m.profile_uid
        WHERE ${where.join(' AND ')}`
      const order = [...sort.map((s) => `${SORT_COLUMNS[s.field]} ${s.dir} NULLS LAST`), 'u.uid'].join(', ')
      const total = await q.query<{ n: number }>(`SELECT count(*)::int AS n ${from}`, params)
      const { rows } = await q.query<UserRow & { profile_uid: string | null, profile_name: string | null }>(
        `SELECT u.*, p.uid AS profile_uid, p.name AS profile_name ${from} ORDER BY ${order}
         LIMIT ${page.size} OFFSET ${page.offset}`, params)
      return {
        count: total.rows[0]?.n ?? 0,
        items: rows.map((r) => ({
          ...toUser(r),
          profile: r.profile_uid === null || r.profile_name === null ? null : { uid: r.profile_uid, name: r.profile_name }
        }))
      }
    }
  }
}
