// Auto-registration (docs/protocols/m3da.md): a device with only a registration password agrees a password with the
// service; steps 1 and 3 are answered, step 5 stores the password (communication.m3da.password) and is not answered.
import type { Envelope } from '../../protocols/m3da/index.js'
import { answerAutoregKey, finishServerAutoreg, isAutoregStart, startServerAutoreg, type ServerAutoregState } from '../../protocols/m3da/security/index.js'
import type { M3daDevice } from './m3da-devices.js'
import { plain, type Answer, type SessionDeps } from './session-types.js'

// An auto-registration left half-way is forgotten after this (the agent waits 60 s for a reply, §2.4).
const AUTOREG_MS = 120_000

export function createAutoreg (deps: SessionDeps) {
  const autoregs = new Map<string, { state: ServerAutoregState, at: number }>()

  function refused (id: string, reason: string): Answer {
    autoregs.delete(id)
    deps.pipeline.refuse(reason)
    return plain(401, true)
  }

  async function finish (device: M3daDevice, id: string, newPassword: string): Promise<Answer> {
    autoregs.delete(id)
    await deps.m3da.setPassword(device.session.systemUid, newPassword)
    device.password = newPassword
    deps.log.info({ systemUid: device.session.systemUid }, 'M3DA device auto-registered; its new password is stored')
    return { reply: null, status: 200, close: false }
  }

  async function autoreg (device: M3daDevice, id: string, outer: Envelope): Promise<Answer> {
    const creds = { deviceId: id, registrationPassword: device.registrationPassword ?? '', serverId: deps.serverId }
    const now = Date.now()
    const current = autoregs.get(id)
    const state = current !== undefined && now - current.at < AUTOREG_MS && !isAutoregStart(outer) ? current.state : undefined
    if (state === undefined) {
      const r = startServerAutoreg(outer)
      if (!r.ok) return refused(id, r.reason)
      autoregs.set(id, { state: r.state, at: now })
      return { reply: r.reply, status: 200, close: false }
    }
    if (state.step === 'wait-pubkey') {
      const r = answerAutoregKey(state, outer, creds)
      if (!r.ok) return refused(id, r.reason)
      autoregs.set(id, { state: r.state, at: now })
      return { reply: r.reply, status: 200, close: false }
    }
    const r = finishServerAutoreg(state, outer, creds)
    return r.ok ? await finish(device, id, r.newPassword) : refused(id, r.reason)
  }

  return {
    autoreg,
    /** Whether the envelope starts or goes on with an auto-registration of this device. */
    applies: (id: string, outer: Envelope): boolean => isAutoregStart(outer) || autoregs.has(id)
  }
}
