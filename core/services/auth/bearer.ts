// Bearer tokens: an access token resolved into the Actor of an API call, and its end (logout).
import { FleetError } from '../../errors.js'
import type { Clock } from '../../ports/store.js'
import type { Repositories } from '../../ports/repositories.js'
import type { Actor, ActorMembership } from '../../domain/actor.js'
import { rightsOf } from '../../domain/rights.js'
import { sha256 } from '../../security/secrets.js'
import type { AccessEpoch } from '../access-epoch.js'

const ACTOR_TTL_MS = 2000
const ACTORS_MAX = 100_000

export interface BearerDeps {
  repos: Pick<Repositories, 'tokens' | 'users' | 'memberships'>
  clock: Clock
  epoch: AccessEpoch
}

export interface Bearer {
  /** @throws FleetError invalid_token when the token is unknown, expired or a refresh token. */
  authenticate: (accessToken: string, ip: string) => Promise<Actor>
  /** Ends the token (and its pair). Unknown tokens are ignored: logging out twice is not an error. */
  expire: (accessToken: string) => Promise<void>
  /** Forgets the actor of a token (by its hash) that was revoked: the next call asks the store again. */
  forget: (hash: string) => void
}

export function createBearer ({ repos, clock, epoch }: BearerDeps): Bearer {
  // A token resolves to the same actor for a short while: the store is asked once per token and ACTOR_TTL_MS
  // rather than on every call. A logout in this process takes effect at once; a change of rights, or a logout
  // through another process, within ACTOR_TTL_MS.
  const actors = new Map<string, { actor: Omit<Actor, 'ip'>, until: number, epoch: number }>()
  const tokenExpiry = new Map<string, number>()

  async function authenticate (accessToken: string, ip: string): Promise<Actor> {
    const hash = sha256(accessToken)
    const now = clock.now()
    const hit = actors.get(hash)
    if (hit !== undefined && hit.until > now && hit.epoch === epoch.current()) return { ...hit.actor, ip }
    const at = epoch.current()
    const actor = await resolve(hash, ip)
    if (actors.size >= ACTORS_MAX) actors.clear()
    actors.set(hash, { actor, until: Math.min(now + ACTOR_TTL_MS, tokenExpiry.get(hash) ?? now), epoch: at })
    tokenExpiry.delete(hash)
    return actor
  }

  async function resolve (hash: string, ip: string): Promise<Actor> {
    const found = await repos.tokens.find(hash)
    if (found === undefined || found.kind !== 'access' || found.expiresAt <= clock.now()) {
      throw new FleetError('invalid_token', [], { message: 'the access token is invalid or expired' })
    }
    tokenExpiry.set(hash, found.expiresAt)
    if (found.userUid === null) {
      return { userUid: null, clientId: found.clientId, ip, homeCompanyUid: null, memberships: new Map() }
    }
    const user = await repos.users.findByUid(found.userUid)
    const memberships = new Map<string, ActorMembership>()
    for (const m of await repos.memberships.forUser(found.userUid)) {
      memberships.set(m.companyUid, {
        companyName: m.companyName,
        administrator: m.administrator,
        profile: m.profile === null ? null : { uid: m.profile.uid, name: m.profile.name },
        rights: new Set(rightsOf(m.profile?.rights ?? [], m.administrator))
      })
    }
    return { userUid: found.userUid, clientId: found.clientId, ip, homeCompanyUid: user?.companyUid ?? null, memberships }
  }

  async function expire (accessToken: string): Promise<void> {
    actors.delete(sha256(accessToken))
    await repos.tokens.revoke(sha256(accessToken))
  }

  return { authenticate, expire, forget: (hash) => { actors.delete(hash) } }
}
