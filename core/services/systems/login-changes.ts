// Device logins live in an external broker too: every way a system's logins change (create, edit,
// bulk edit, register, import, delete, bulk delete, transfer, seed) goes through these repository calls in one
// transaction, so the unit of work notes the systems they touch and tells the sync once the transaction is
// committed. A change rolled back (a failed task's savepoint) is told too: the sync reads the committed state, so
// telling too much costs a read, never a wrong broker entry.
import type { DeviceCredentialsSync } from '../../ports/broker.js'
import type { Repositories, SystemsRepository } from '../../ports/repositories.js'
import type { UnitOfWork } from '../../ports/store.js'

function tracked (systems: SystemsRepository, touched: Set<string>): SystemsRepository {
  return {
    ...systems,
    async insert (row) { touched.add(row.uid); await systems.insert(row) },
    async update (uid, patch) {
      if (patch.communication !== undefined) touched.add(uid)
      await systems.update(uid, patch)
    },
    async setCommIdentifiers (uid, identifiers) { touched.add(uid); await systems.setCommIdentifiers(uid, identifiers) },
    async delete (uid) { touched.add(uid); await systems.delete(uid) },
    async deleteMany (companyUid, uids) {
      const deleted = await systems.deleteMany(companyUid, uids)
      for (const d of deleted) touched.add(d.uid)
      return deleted
    },
    async transfer (uid, to) { touched.add(uid); await systems.transfer(uid, to) }
  }
}

/** The unit of work that tells `sync` which systems' logins a committed transaction may have changed. */
export function withLoginChanges (inTransaction: UnitOfWork, sync: DeviceCredentialsSync): UnitOfWork {
  return async (fn) => {
    const touched = new Set<string>()
    const out = await inTransaction(async (repos: Repositories) => await fn({ ...repos, systems: tracked(repos.systems, touched) }))
    if (touched.size > 0) await sync.changed([...touched])
    return out
  }
}
