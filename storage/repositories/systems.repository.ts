// The systems repository over a Queryable, in three parts: reads (finds, criteria, sorts), writes, device logins.
import type { Queryable } from '../../core/ports/store.js'
import type { SystemsRepository } from '../../core/ports/systems.js'
import { createSystemReads } from './systems/reads.js'
import { createSystemWrites } from './systems/writes.js'
import { createSystemDeviceLogins } from './systems/device-logins.js'

export function createSystemsRepository (q: Queryable): SystemsRepository {
  return { ...createSystemReads(q), ...createSystemWrites(q), ...createSystemDeviceLogins(q) }
}
