// Device logins looked up in the store together (devices.service.ts): the logins of devices connecting at the same
// time go in one statement for all that arrive while one is on its way; after a reboot of the fleet, thousands
// reconnect within a second (bench/reboot.ts).
import type { DeviceLogin, Repositories } from '../../ports/repositories.js'
import { createGroupCommit } from './group-commit.js'
import { isStoreUnavailable } from '../../store-errors.js'

/** One login on its way to the store, and what it found. */
interface LoginItem { identifier: string, login: DeviceLogin | undefined }

export function createLoginLookup (repos: Pick<Repositories, 'systems'>) {
  const logins = createGroupCommit<LoginItem>({
    write: async (items) => {
      const found = new Map((await repos.systems.deviceLogins(items.map((i) => i.identifier))).map((l) => [l.identifier, l]))
      for (const i of items) i.login = found.get(i.identifier)
      return items.map(() => undefined)
    },
    maxBatch: 1000,
    maxPending: 50_000,
    parallel: 1,
    failsWhole: isStoreUnavailable
  })
  return {
    /** The login of this identifier (serial number or IMEI), undefined when no system has it. */
    async find (identifier: string): Promise<DeviceLogin | undefined> {
      const item: LoginItem = { identifier, login: undefined }
      await logins.submit(item)
      return item.login
    }
  }
}
