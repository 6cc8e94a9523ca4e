// §6.2.2 Update and §6.2.3 De-register (OMA LwM2M Core; docs/protocols/lwm2m.md): by the registration id of the
// Location-Path, over the same security as the Register (4.03 otherwise), 4.04 for an id that ended or never was.
// An Update may change the lifetime, binding and object links, and may come from a new address (NAT).
import { CoapCode, uriQueryOf, type CoapMessage, type OutgoingResponse } from '../../protocols/coap/index.js'
import { parseRegistrationLinks, parseUpdateQuery } from '../../protocols/lwm2m/index.js'
import type { Lwm2mRegistration } from './lwm2m.port.js'
import { peerKey, type Link, type LiveRegistration } from './live.js'
import { answer, bindingText, linksOf, refused, type RegistrarDeps } from './registration-parts.js'

/** An Update or De-register must come as the registration was made: over DTLS with the same identity, or in clear. */
export const sameSecurity = (r: Lwm2mRegistration, link: Link): boolean => r.secure ? link.identity !== null && link.identity === r.pskIdentity : link.identity === null

/** §6.2.2 Update: lifetime, binding and object links may change; the device may come from a new address. */
export async function update (deps: RegistrarDeps, id: string, req: CoapMessage, link: Link): Promise<OutgoingResponse> {
  const reg = await deps.store.find(id)
  if (reg === undefined) return refused(deps, 'lwm2m.registration.unknown', CoapCode.NotFound)
  if (!sameSecurity(reg, link)) return refused(deps, 'lwm2m.registration.forbidden', CoapCode.Forbidden)
  const version = reg.version === '1.0' ? '1.0' : '1.1'
  const u = parseUpdateQuery(uriQueryOf(req), version)
  if (!u.ok) return refused(deps, u.reason, CoapCode.BadRequest)
  const objects = req.payload.length === 0 ? undefined : linksOf(req.payload)
  if (objects !== undefined && !objects.ok) return refused(deps, objects.reason, CoapCode.BadRequest)
  if (!deps.limits.admit(reg.systemUid, req.payload.length).ok) return refused(deps, 'device.rate.limited', CoapCode.ServiceUnavailable)
  const b = u.update.binding
  const now = deps.now()
  const after = await deps.store.update(id, {
    lifetimeS: u.update.lifetime,
    binding: b === undefined ? undefined : bindingText(b),
    queueMode: b?.queue,
    objectLinks: objects?.text,
    peer: peerKey(link),
    at: now
  })
  if (after === undefined) return refused(deps, 'lwm2m.registration.unknown', CoapCode.NotFound)
  const held = deps.live.byId(id)
  // Observations are made again when the device moved, listed other objects, or registered with another process.
  const fresh = held === undefined || held.link.endpoint !== link.endpoint || held.link.peer !== link.peer || objects !== undefined
  const live = held ?? await revive(deps, after, link)
  if (live === undefined) return refused(deps, 'device.unknown', CoapCode.Forbidden)
  live.link = link
  live.queueMode = after.queueMode
  live.heardAt = now
  live.expiresAt = after.expiresAt
  if (objects !== undefined) live.links = objects.links
  if (fresh) deps.live.set(live)
  setImmediate(() => { deps.onContact(live, fresh) })
  return answer(CoapCode.Changed)
}

/** A registration made with another process (or before a restart) taken over here at its Update. */
async function revive (deps: Pick<RegistrarDeps, 'devices'>, reg: Lwm2mRegistration, link: Link): Promise<LiveRegistration | undefined> {
  const found = await deps.devices.lookup(reg.endpoint, link.ip)
  if (!found.ok || found.device.session.systemUid !== reg.systemUid) return undefined
  const links = parseRegistrationLinks(reg.objectLinks)
  const { device } = found
  return {
    id: reg.id,
    session: device.session,
    link,
    version: reg.version === '1.0' ? '1.0' : '1.1',
    queueMode: reg.queueMode,
    links: links.ok ? links.registration : { rootPath: '/', contentFormats: [], objects: [], ignored: [] },
    wanted: device.observe,
    actions: device.actions,
    observations: [],
    heardAt: reg.updatedAt,
    expiresAt: reg.expiresAt
  }
}

/** §6.2.3 De-register: the registration ends, its observations with it. */
export async function deregister (deps: RegistrarDeps, id: string, link: Link): Promise<OutgoingResponse> {
  const reg = await deps.store.find(id)
  if (reg === undefined) return refused(deps, 'lwm2m.registration.unknown', CoapCode.NotFound)
  if (!sameSecurity(reg, link)) return refused(deps, 'lwm2m.registration.forbidden', CoapCode.Forbidden)
  await deps.store.remove(id)
  deps.live.end(reg.systemUid, id)
  return answer(CoapCode.Deleted)
}
