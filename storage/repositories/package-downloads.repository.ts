// The package download links (core/ports/package-downloads.ts; table package_downloads, migration 0032).
import type { Queryable } from '../../core/ports/store.js'
import type { PackageDownload, PackageDownloadsRepository } from '../../core/ports/package-downloads.js'

interface Row {
  system_uid: string
  task_uid: string
  artifact: string
  file: string
  size: string
  expires_at: string
  bytes_served: string
  first_download_at: string | null
  last_download_at: string | null
}

const msOrNull = (v: string | null): number | null => v === null ? null : Number(v)

function download (r: Row): PackageDownload {
  return {
    systemUid: r.system_uid,
    taskUid: r.task_uid,
    artifact: r.artifact,
    file: r.file,
    size: Number(r.size),
    expiresAt: Number(r.expires_at),
    bytesServed: Number(r.bytes_served),
    firstDownloadAt: msOrNull(r.first_download_at),
    lastDownloadAt: msOrNull(r.last_download_at)
  }
}

export function createPackageDownloadsRepository (q: Queryable): PackageDownloadsRepository {
  return {
    async insert (tokenSha256, l, createdAt) {
      await q.query(`INSERT INTO package_downloads (token_sha256, system_uid, task_uid, artifact, file, size, expires_at, created_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [tokenSha256, l.systemUid, l.taskUid, l.artifact, l.file, l.size, l.expiresAt, createdAt])
    },
    async find (tokenSha256) {
      const { rows } = await q.query<Row>(`SELECT system_uid, task_uid, artifact, file, size, expires_at, bytes_served, first_download_at, last_download_at
        FROM package_downloads WHERE token_sha256 = $1`, [tokenSha256])
      return rows[0] === undefined ? undefined : download(rows[0])
    },
    async addServed (served) {
      if (served.length === 0) return
      await q.query(`UPDATE package_downloads d SET bytes_served = d.bytes_served + s.bytes,
          first_download_at = LEAST(COALESCE(d.first_download_at, s.first), s.first),
          last_download_at = GREATEST(COALESCE(d.last_download_at, s.last), s.last)
        FROM unnest($1::text[], $2::int8[], $3::int8[], $4::int8[]) AS s (token, bytes, first, last)
        WHERE d.token_sha256 = s.token`,
      [served.map((s) => s.tokenSha256), served.map((s) => s.bytes), served.map((s) => s.first), served.map((s) => s.last)])
    },
    async removeForTasks (taskUids) {
      if (taskUids.length === 0) return 0
      return (await q.query('DELETE FROM package_downloads WHERE task_uid = ANY($1::text[])', [[...taskUids]])).rowCount
    },
    async removeExpired (before) {
      return (await q.query('DELETE FROM package_downloads WHERE expires_at < $1', [before])).rowCount
    }
  }
}
