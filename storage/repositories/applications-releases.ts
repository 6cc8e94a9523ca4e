// The applications' release side (docs/packages.md#release-and-publish): their life, owner, update path and
// binaries (application_binaries), publishing, and deleting with what the artifact store may then drop.
import type { Queryable } from '../../core/ports/store.js'
import { FleetError } from '../../core/errors.js'
import type { ApplicationsRepository } from '../../core/ports/applications.js'
import type { ApplicationRelease, ApplicationState, StoredBinary } from '../../core/domain/application-package.js'

type Releases = Pick<ApplicationsRepository, 'releases' | 'insertReleased' | 'publish' | 'inUse' | 'delete' | 'artifactsInUse'>

interface ReleaseRow {
  uid: string
  state: ApplicationState
  released: string | number | null
  published: string | number | null
  owner_uid: string | null
  owner_name: string | null
  application_manager: string | null
}

interface BinaryRow {
  application_uid: string
  file: string
  revision: string | null
  type: string | null
  size: string | number
  sha256: string
  md5: string
  artifact: string
}

// bigint columns come back as strings from PostgreSQL; times and sizes fit a JavaScript number.
const num = (v: string | number | null): number | null => v === null ? null : Number(v)

const toBinary = (r: BinaryRow): StoredBinary => ({
  file: r.file, revision: r.revision, type: r.type, size: Number(r.size), sha256: r.sha256, md5: r.md5, artifact: r.artifact
})

function reads (q: Queryable): Pick<Releases, 'releases' | 'inUse' | 'artifactsInUse'> {
  return {
    async releases (uids) {
      const out = new Map<string, ApplicationRelease>()
      if (uids.length === 0) return out
      const { rows } = await q.query<ReleaseRow>(
        `SELECT a.uid, a.state, a.released, a.published, a.owner_uid, u.name AS owner_name, a.application_manager
         FROM applications a LEFT JOIN users u ON u.uid = a.owner_uid WHERE a.uid = ANY($1::text[])`, [[...uids]])
      for (const r of rows) {
        out.set(r.uid, {
          state: r.state,
          released: num(r.released),
          published: num(r.published),
          owner: r.owner_uid === null ? null : { uid: r.owner_uid, name: r.owner_name },
          applicationManager: r.application_manager,
          binaries: []
        })
      }
      const { rows: binaries } = await q.query<BinaryRow>(
        'SELECT * FROM application_binaries WHERE application_uid = ANY($1::text[]) ORDER BY application_uid, position', [[...uids]])
      for (const b of binaries) out.get(b.application_uid)?.binaries.push(toBinary(b))
      return out
    },
    async inUse (uid) {
      await q.query('SELECT uid FROM applications WHERE uid = $1 FOR UPDATE', [uid])
      const { rows } = await q.query<{ operations: number, systems: number }>(
        `SELECT (SELECT count(*)::int FROM operations WHERE state <> 'FINISHED' AND parameters ->> 'application' = $1) AS operations,
                (SELECT count(*)::int FROM system_applications WHERE application_uid = $1) AS systems`, [uid])
      return rows[0] ?? { operations: 0, systems: 0 }
    },
    async artifactsInUse (keys) {
      if (keys.length === 0) return new Set()
      const { rows } = await q.query<{ artifact: string }>(
        'SELECT DISTINCT artifact FROM application_binaries WHERE artifact = ANY($1::text[])', [[...keys]])
      return new Set(rows.map((r) => r.artifact))
    }
  }
}

function writes (q: Queryable, artifactsInUse: Releases['artifactsInUse']): Pick<Releases, 'insertReleased' | 'publish' | 'delete'> {
  return {
    async insertReleased ({ application: a, ownerUid, applicationManager, binaries }, now) {
      try {
        await q.query(
          `INSERT INTO applications (uid, company_uid, name, revision, type, category, communication, data, created_at,
             state, released, published, owner_uid, application_manager)
           VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, 'RELEASED', $9, NULL, $10, $11)`,
          [a.uid, a.companyUid, a.name, a.revision, a.type, a.category, JSON.stringify(a.communication), JSON.stringify(a.data), now, ownerUid, applicationManager])
      } catch (err) {
        if ((err as { code?: unknown }).code === '23505') throw new FleetError('application.not.unique', [a.type, a.revision])
        throw err
      }
      for (const [position, b] of binaries.entries()) {
        await q.query(
          `INSERT INTO application_binaries (application_uid, position, file, revision, type, size, sha256, md5, artifact)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [a.uid, position, b.file, b.revision, b.type, b.size, b.sha256, b.md5, b.artifact])
      }
    },
    async publish (uid, now) {
      await q.query('UPDATE applications SET state = \'PUBLISHED\', published = coalesce(published, $2) WHERE uid = $1', [uid, now])
    },
    async delete (uid) {
      const { rows } = await q.query<{ artifact: string }>('SELECT DISTINCT artifact FROM application_binaries WHERE application_uid = $1', [uid])
      await q.query('DELETE FROM applications WHERE uid = $1', [uid])
      const keys = rows.map((r) => r.artifact)
      const used = await artifactsInUse(keys)
      return keys.filter((k) => !used.has(k))
    }
  }
}

export function applicationReleases (q: Queryable): Releases {
  const r = reads(q)
  return { ...r, ...writes(q, r.artifactsInUse) }
}
