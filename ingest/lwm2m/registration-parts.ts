// What the parts of the registration interface share (registration.ts routes to register.ts and update.ts): their
// dependencies, the refusal (counted, answered with its CoAP code), and the object links of a payload.
import { parseRegistrationLinks, type RegistrationLinks } from '../../protocols/lwm2m/index.js'
import type { OutgoingResponse } from '../../protocols/coap/index.js'
import type { Logger } from '../../core/logger.js'
import type { Pipeline } from '../pipeline.js'
import type { DeviceLimits } from '../device-limits.js'
import type { Lwm2mDevices } from './lwm2m-devices.js'
import type { Lwm2mRepository } from './lwm2m.port.js'
import type { LiveRegistration, LiveRegistrations } from './live.js'

export interface RegistrarDeps {
  devices: Lwm2mDevices
  store: Lwm2mRepository
  live: LiveRegistrations
  pipeline: Pick<Pipeline, 'refuse'>
  limits: DeviceLimits
  now: () => number
  log: Logger
  /** After a Register or Update was answered: the device is communicating (its tasks, its observations). */
  onContact: (r: LiveRegistration, fresh: boolean) => void
}

export const answer = (code: number): OutgoingResponse => ({ code })

/** The registration's object links, or the refusal reason. */
export function linksOf (payload: Buffer): { ok: true, links: RegistrationLinks, text: string } | { ok: false, reason: string } {
  const parsed = parseRegistrationLinks(payload)
  return parsed.ok ? { ok: true, links: parsed.registration, text: payload.toString('utf8') } : parsed
}

/** Counts a refusal (ingest refusals, protocol LWM2M) and answers it with `code`; nothing is stored. */
export function refused (deps: Pick<RegistrarDeps, 'pipeline'>, reason: string, code: number): OutgoingResponse {
  deps.pipeline.refuse(reason)
  return answer(code)
}

/** `U`, `UQ`, `UT`...: the binding as stored. */
export const bindingText = (b: { transports: readonly string[], queue: boolean }): string => b.transports.join('') + (b.queue ? 'Q' : '')
