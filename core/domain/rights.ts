// Rights are strings `<area>.<subject>.<action>` (docs/api.md#users-and-companies); the permission of each endpoint is
// the one of its row in docs/api.md. `administrator` stands for company administrators.

export const ADMINISTRATOR = 'administrator'

/** Every right the service checks; a profile holding all of them is what the bootstrap administrator gets. */
export const ALL_RIGHTS = [
  'accountNetwork.users.view',
  'accountNetwork.users.write',
  'accountNetwork.company.viewDetails',
  'accountNetwork.company.viewAdministrators',
  'entities.systems.view',
  'entities.systems.create',
  'entities.systems.edit',
  'entities.systems.delete',
  'entities.systems.export',
  'entities.system.view',
  'entities.systems.transfers.create',
  'entities.systems.network.swapsim',
  'entities.systems.retrieve.data',
  'entities.systems.settings.apply',
  'entities.applications.view',
  'entities.applications.create',
  'entities.operations.view',
  'device.management.action'
] as const

export type Right = typeof ALL_RIGHTS[number] | typeof ADMINISTRATOR

/** The rights a membership gives: the profile's, plus `administrator` for company administrators. */
export function rightsOf (profileRights: readonly string[], administrator: boolean): string[] {
  const set = new Set(profileRights)
  if (administrator) set.add(ADMINISTRATOR)
  return [...set].sort()
}
