import { FleetError } from '../../errors.js'
import type { Clock, UnitOfWork } from '../../ports/store.js'
import type { Found, Repositories } from '../../ports/repositories.js'
import type { CompanyAccess } from '../access.js'
import type { System, SystemOption } from '../../domain/system.js'
import type { SystemInput } from './input.js'
import { insertSystem, updateSystem } from './write.js'
import { findSystems, type SystemFindQuery } from './find.js'
import { systemViewFor } from './view.js'

export interface SystemsServiceDeps {
  repos: Pick<Repositories, 'systems'>
  inTransaction: UnitOfWork
  clock: Clock
}

type View = Record<string, unknown>

export function createSystemsService ({ repos, inTransaction, clock }: SystemsServiceDeps) {
  async function load (tx: Pick<Repositories, 'systems'>, companyUid: string, uid: string): Promise<System> {
    const s = await tx.systems.findByUid(companyUid, uid)
    if (s === undefined) throw new FleetError('system.unknown', [uid])
    return s
  }

  /** @see insertSystem */
  async function create (access: CompanyAccess, input: SystemInput): Promise<View> {
    const now = clock.now()
    return await inTransaction(async (tx) => {
      const uid = await insertSystem(tx, access.company, input, now)
      return systemViewFor(access)(await load(tx, access.company.uid, uid), now)
    })
  }

  /** @see updateSystem */
  async function edit (access: CompanyAccess, uid: string, input: SystemInput): Promise<View> {
    const now = clock.now()
    return await inTransaction(async (tx) => {
      await updateSystem(tx, access.company.uid, uid, input, now)
      return systemViewFor(access)(await load(tx, access.company.uid, uid), now)
    })
  }

  /** Deletes the system, and its gateway and subscription when asked. @throws system.unknown */
  async function remove (access: CompanyAccess, uid: string, opts: { deleteGateway?: boolean | undefined, deleteSubscription?: boolean | undefined }): Promise<void> {
    await inTransaction(async (tx) => {
      const s = await load(tx, access.company.uid, uid)
      await tx.systems.delete(uid)
      if (opts.deleteGateway === true && s.gateway !== null) await tx.gateways.delete(s.gateway.uid)
      if (opts.deleteSubscription === true && s.subscription !== null) await tx.subscriptions.delete(s.subscription.uid)
    })
  }

  /** Device passwords only for callers holding entities.systems.edit (./view.ts). @throws system.unknown */
  async function details (access: CompanyAccess, uid: string): Promise<View> {
    return systemViewFor(access)(await load(repos, access.company.uid, uid), clock.now())
  }

  /** @throws system.unknown */
  async function options (access: CompanyAccess, uid: string): Promise<SystemOption[]> {
    await load(repos, access.company.uid, uid)
    return await repos.systems.options(uid)
  }

  /** @throws sort.invalid.field, request.invalid (a map parameter with an unknown key) */
  async function find (access: CompanyAccess, q: SystemFindQuery): Promise<Found<View> & { size: number, offset: number }> {
    return await findSystems(repos.systems, access.company.uid, q, clock.now(), systemViewFor(access))
  }

  return { create, edit, remove, details, options, find }
}

export type SystemsService = ReturnType<typeof createSystemsService>
