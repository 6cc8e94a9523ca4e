// What operations keep beside their tasks: the file of an operation (an export, failed rows) and the datasets.
import type { Queryable } from '../../../core/ports/store.js'
import type { OperationsRepository } from '../../../core/ports/operations.js'

export type OperationFiles = Pick<OperationsRepository, 'putFile' | 'file' | 'dataset' | 'datasetByName' | 'putDataset'>

export function createOperationFiles (q: Queryable): OperationFiles {
  return {
    async putFile (operationUid, f) {
      await q.query(`INSERT INTO operation_files (operation_uid, name, content_type, data) VALUES ($1, $2, $3, $4)
        ON CONFLICT (operation_uid) DO UPDATE SET name = EXCLUDED.name, content_type = EXCLUDED.content_type, data = EXCLUDED.data`,
      [operationUid, f.name, f.contentType, f.data])
    },
    async file (operationUid) {
      const { rows } = await q.query<{ name: string, content_type: string, data: Uint8Array }>(
        'SELECT name, content_type, data FROM operation_files WHERE operation_uid = $1', [operationUid])
      const r = rows[0]
      return r === undefined ? undefined : { name: r.name, contentType: r.content_type, data: Buffer.from(r.data) }
    },
    async dataset (companyUid, uid) {
      const { rows } = await q.query<{ uid: string, name: string, data: string[] }>('SELECT uid, name, data FROM datasets WHERE company_uid = $1 AND uid = $2', [companyUid, uid])
      return rows[0]
    },
    async datasetByName (companyUid, name) {
      const { rows } = await q.query<{ uid: string, name: string, data: string[] }>('SELECT uid, name, data FROM datasets WHERE company_uid = $1 AND name = $2', [companyUid, name])
      return rows[0]
    },
    async putDataset (d) {
      await q.query(`INSERT INTO datasets (uid, company_uid, name, data) VALUES ($1, $2, $3, $4)
        ON CONFLICT (uid) DO UPDATE SET name = EXCLUDED.name, data = EXCLUDED.data`, [d.uid, d.companyUid, d.name, d.data])
    }
  }
}
