// A rule's actions run under its owner's rights (docs/alerts.md#actions): the caller an action's operation is created
// for is the owner as a member of the rule's company, read when the action starts, so that a right taken from the
// owner since the rule was written is not used.
import type { Actor } from '../../domain/actor.js'
import { rightsOf } from '../../domain/rights.js'
import type { Repositories } from '../../ports/repositories.js'
import type { Caller } from '../../operations/common.js'

/** Why the owner cannot start the action (the actions' metric and log say it). */
export type NoCaller = 'no_owner' | 'no_rights'

/** Where an action is started from: not an API call, so no address and no client (its operation records the owner). */
const ALERT_CLIENT = 'alert-rule'

/** The owner acting in the rule's company, holding `right`; or why not. */
export async function ownerCaller (repos: Pick<Repositories, 'memberships' | 'companies'>, companyUid: string,
  ownerUid: string | null, right: string): Promise<Caller | NoCaller> {
  if (ownerUid === null) return 'no_owner'
  const m = await repos.memberships.get(ownerUid, companyUid)
  const company = m === undefined ? undefined : await repos.companies.findByUid(companyUid)
  if (m === undefined || company === undefined) return 'no_rights'
  const membership = {
    companyName: m.companyName,
    administrator: m.administrator,
    profile: m.profile === null ? null : { uid: m.profile.uid, name: m.profile.name },
    rights: new Set(rightsOf(m.profile?.rights ?? [], m.administrator))
  }
  if (!membership.rights.has(right)) return 'no_rights'
  const actor: Actor = { userUid: ownerUid, clientId: ALERT_CLIENT, ip: '', homeCompanyUid: null, memberships: new Map([[companyUid, membership]]) }
  return { access: { company, membership }, actor }
}
