import type { Queryable } from '../../core/ports/store.js'
import { FleetError } from '../../core/errors.js'
import type { ApplicationsRepository } from '../../core/ports/applications.js'
import type { Application } from '../../core/domain/system.js'
import { containsPattern } from './users.repository.js'
import { applicationReleases } from './applications-releases.js'

interface ApplicationRow {
  uid: string
  company_uid: string | null
  name: string
  revision: string
  type: string
  category: Application['category']
  communication: Application['communication']
  data: Application['data']
}

const toApplication = (r: ApplicationRow): Application => ({
  uid: r.uid, companyUid: r.company_uid, name: r.name, revision: r.revision, type: r.type, category: r.category, communication: r.communication, data: r.data
})

/** The reads: applications by uid, by key or by filter, and those installed on systems. */
function applicationReads (q: Queryable): Pick<ApplicationsRepository, 'findByUids' | 'find' | 'findByKey' | 'ofSystem' | 'forSystems'> {
  return {
    async findByUids (companyUid, uids) {
      const { rows } = await q.query<ApplicationRow>(
        'SELECT * FROM applications WHERE uid = ANY($1::text[]) AND (company_uid IS NULL OR company_uid = $2)', [uids, companyUid])
      return rows.map(toApplication)
    },
    async find (companyUid, f, page) {
      const p: unknown[] = [companyUid]
      const w = ['(company_uid IS NULL OR company_uid = $1)']
      const add = (sql: string, v: unknown): void => { p.push(v); w.push(sql.replace('?', `$${p.length}`)) }
      if (f.uid !== undefined) add('uid = ?', f.uid)
      if (f.name !== undefined) add('name ILIKE ?', containsPattern(f.name))
      if (f.type !== undefined) add('type ILIKE ?', containsPattern(f.type))
      if (f.revision !== undefined) add('revision ILIKE ?', containsPattern(f.revision))
      if (f.category !== undefined) add('category = ?', f.category)
      const where = w.join(' AND ')
      const total = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM applications WHERE ${where}`, p)
      const { rows } = await q.query<ApplicationRow>(
        `SELECT * FROM applications WHERE ${where} ORDER BY name, revision, uid LIMIT ${page.size} OFFSET ${page.offset}`, p)
      return { count: total.rows[0]?.n ?? 0, items: rows.map(toApplication) }
    },
    async findByKey (companyUid, type, revision) {
      const { rows } = await q.query<ApplicationRow>(
        'SELECT * FROM applications WHERE coalesce(company_uid, \'\') = coalesce($1, \'\') AND type = $2 AND revision = $3',
        [companyUid, type, revision])
      return rows[0] === undefined ? undefined : toApplication(rows[0])
    },
    async ofSystem (systemUid) {
      // Software (APPLICATION) before FIRMWARE, then by type: the order a system's applications are shown in.
      const { rows } = await q.query<ApplicationRow>(
        `SELECT a.* FROM system_applications sa JOIN applications a ON a.uid = sa.application_uid
         WHERE sa.system_uid = $1 ORDER BY a.category, a.type, a.name`, [systemUid])
      return rows.map(toApplication)
    },
    async forSystems (systemUids) {
      const out = new Map<string, Application[]>(systemUids.map((u) => [u, []]))
      if (systemUids.length === 0) return out
      // Which applications each system has, then each application once: the systems of a fleet share a few
      // applications, whose data trees are large (a chunk of 100 systems of one firmware read its tree 100 times).
      const { rows: links } = await q.query<{ system_uid: string, application_uid: string }>(
        `SELECT sa.system_uid, sa.application_uid FROM system_applications sa JOIN applications a ON a.uid = sa.application_uid
         WHERE sa.system_uid = ANY($1::text[]) ORDER BY sa.system_uid, a.category, a.type, a.name`, [systemUids])
      if (links.length === 0) return out
      const { rows } = await q.query<ApplicationRow>('SELECT * FROM applications WHERE uid = ANY($1::text[])', [[...new Set(links.map((l) => l.application_uid))]])
      const apps = new Map(rows.map((r) => [r.uid, toApplication(r)]))
      for (const l of links) {
        const a = apps.get(l.application_uid)
        if (a !== undefined) out.get(l.system_uid)?.push(a)
      }
      return out
    }
  }
}

/**
 * The writes: an application inserted, replaced or put by its key, and its data tree and communication. One made
 * without a package is PUBLISHED from its creation (docs/packages.md#release-and-publish).
 */
type Writes = Pick<ApplicationsRepository, 'insert' | 'update' | 'put' | 'setData' | 'setCommunication'>

function applicationWrites (q: Queryable): Writes {
  return {
    async insert (a, createdAt) {
      try {
        await q.query(
          `INSERT INTO applications (uid, company_uid, name, revision, type, category, communication, data, created_at, published)
           VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $9)`,
          [a.uid, a.companyUid, a.name, a.revision, a.type, a.category, JSON.stringify(a.communication), JSON.stringify(a.data), createdAt])
      } catch (err) {
        // Two requests adding one type and revision at once: the later waits on applications_key, then finds it taken.
        if ((err as { code?: unknown }).code === '23505') throw new FleetError('application.not.unique', [a.type, a.revision])
        throw err
      }
    },
    async update (uid, a) {
      await q.query(
        `UPDATE applications SET name = $2, revision = $3, type = $4, category = $5, communication = $6::jsonb,
           data = $7::jsonb WHERE uid = $1`,
        [uid, a.name, a.revision, a.type, a.category, JSON.stringify(a.communication), JSON.stringify(a.data)])
    },
    async put (a, createdAt) {
      await q.query(
        `INSERT INTO applications (uid, company_uid, name, revision, type, category, communication, data, created_at, published)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $9)
         ON CONFLICT ((coalesce(company_uid, '')), type, revision) DO UPDATE SET name = EXCLUDED.name,
           category = EXCLUDED.category, communication = EXCLUDED.communication, data = EXCLUDED.data`,
        [a.uid, a.companyUid, a.name, a.revision, a.type, a.category, JSON.stringify(a.communication), JSON.stringify(a.data), createdAt])
    },
    async setData (uid, data) {
      await q.query('UPDATE applications SET data = $2::jsonb WHERE uid = $1', [uid, JSON.stringify(data)])
    },
    async setCommunication (uid, communication) {
      await q.query('UPDATE applications SET communication = $2::jsonb WHERE uid = $1', [uid, JSON.stringify(communication)])
    }
  }
}

export function createApplicationsRepository (q: Queryable): ApplicationsRepository {
  return { ...applicationReads(q), ...applicationWrites(q), ...applicationReleases(q) }
}
