// The registration interface (docs/protocols/lwm2m.md; OMA LwM2M Core §6.2, transport §8.2.3): `POST /rd?ep=..` with
// the object links registers and is answered 2.01 with Location-Path rd/<id>; `POST /rd/<id>` updates; `DELETE
// /rd/<id>` de-registers. Admission (docs/protocols/lwm2m.md): the endpoint name must be a system's gateway
// serial number or IMEI, its company's device address filter must allow the device, and either the DTLS session's
// PSK identity is the system's, or the request came over plain CoAP and the system's application allows NoSec
// (`security: "none"`). Every refusal is counted (ingest refusals, protocol LWM2M) and stores nothing.
import { CoapCode, uriPathOf, type CoapMessage, type OutgoingResponse } from '../../protocols/coap/index.js'
import type { Link } from './live.js'
import { answer, refused, type RegistrarDeps } from './registration-parts.js'
import { register } from './register.js'
import { deregister, update } from './update.js'

export type { RegistrarDeps } from './registration-parts.js'

export function createRegistrar (deps: RegistrarDeps) {
  /** Answers one request to our endpoint. Never throws: a failure of ours is 5.00 (the device tries again). */
  async function handle (req: CoapMessage, link: Link): Promise<OutgoingResponse> {
    const segments = uriPathOf(req).split('/').slice(1)
    if (segments[0] !== 'rd' || segments.length > 2) return refused(deps, 'lwm2m.path.unknown', CoapCode.NotFound)
    const id = segments[1]
    try {
      if (id === undefined || id === '') return req.code === CoapCode.POST ? await register(deps, req, link) : refused(deps, 'lwm2m.method.not.allowed', CoapCode.MethodNotAllowed)
      if (req.code === CoapCode.POST) return await update(deps, id, req, link)
      if (req.code === CoapCode.DELETE) return await deregister(deps, id, link)
      return refused(deps, 'lwm2m.method.not.allowed', CoapCode.MethodNotAllowed)
    } catch (err) {
      deps.log.error({ err }, 'LwM2M registration request not handled')
      return answer(CoapCode.InternalServerError)
    }
  }

  return { handle }
}

export type Registrar = ReturnType<typeof createRegistrar>
