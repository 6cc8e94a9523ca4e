// §6.2.1 Register (OMA LwM2M Core; docs/protocols/lwm2m.md#admission): the query and object links are checked (4.00),
// the endpoint name must be a known system's whose company admits the device's address (4.03), and the security must
// fit: over DTLS the session's PSK identity must be the system's own, over plain CoAP its application must allow
// NoSec (4.03). The registration is stored, replacing the system's earlier one, and answered 2.01 rd/<id>.
import { randomBytes } from 'node:crypto'
import { CoapCode, OptionNumber, uriQueryOf, type CoapMessage, type OutgoingResponse } from '../../protocols/coap/index.js'
import { parseRegisterQuery } from '../../protocols/lwm2m/index.js'
import type { Lwm2mRegistration } from './lwm2m.port.js'
import { peerKey, type Link, type LiveRegistration } from './live.js'
import { bindingText, linksOf, refused, type RegistrarDeps } from './registration-parts.js'

/** §6.2.1 Register. */
export async function register (deps: RegistrarDeps, req: CoapMessage, link: Link): Promise<OutgoingResponse> {
  const q = parseRegisterQuery(uriQueryOf(req))
  if (!q.ok) return refused(deps, q.reason, CoapCode.BadRequest)
  const objects = linksOf(req.payload)
  if (!objects.ok) return refused(deps, objects.reason, CoapCode.BadRequest)
  const found = await deps.devices.lookup(q.query.endpoint, link.ip)
  if (!found.ok) return refused(deps, found.reason, CoapCode.Forbidden)
  const { device } = found
  if (link.identity !== null) {
    // The key the session proved must be this system's: an identity of another system (of another company, say)
    // registering this endpoint name is refused.
    const owner = await deps.devices.identityOwner(link.identity)
    if (owner?.systemUid !== device.session.systemUid) return refused(deps, 'lwm2m.psk.identity.mismatch', CoapCode.Forbidden)
  } else if (device.security !== 'none') {
    return refused(deps, 'lwm2m.security.required', CoapCode.Forbidden)
  }
  if (!deps.limits.admit(device.session.systemUid, req.payload.length).ok) return refused(deps, 'device.rate.limited', CoapCode.ServiceUnavailable)
  const now = deps.now()
  const { query } = q
  const stored: Lwm2mRegistration = {
    id: randomBytes(9).toString('base64url'),
    systemUid: device.session.systemUid,
    endpoint: query.endpoint,
    lifetimeS: query.lifetime,
    binding: bindingText(query.binding),
    queueMode: query.binding.queue,
    version: query.version,
    objectLinks: objects.text,
    peer: peerKey(link),
    secure: link.identity !== null,
    pskIdentity: link.identity,
    registeredAt: now,
    updatedAt: now,
    expiresAt: now + query.lifetime * 1000
  }
  await deps.store.register(stored)
  const live: LiveRegistration = {
    id: stored.id,
    session: device.session,
    link,
    version: query.version,
    queueMode: stored.queueMode,
    links: objects.links,
    wanted: device.observe,
    actions: device.actions,
    observations: [],
    heardAt: now,
    expiresAt: stored.expiresAt
  }
  deps.live.set(live)
  setImmediate(() => { deps.onContact(live, true) }) // once the 2.01 is on its way
  return { code: CoapCode.Created, options: [{ number: OptionNumber.LocationPath, value: Buffer.from('rd') }, { number: OptionNumber.LocationPath, value: Buffer.from(stored.id) }] }
}
