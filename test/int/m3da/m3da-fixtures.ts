// Systems for the M3DA transport tests (docs/protocols/m3da.md): a gateway whose serial number is the device
// id, an M3DA password or registration password, and an application that speaks M3DA with the given parameters.
import { expect } from 'vitest'
import { GENERIC_APPLICATION_TYPES, genericDataTree } from '../../../core/domain/generic-applications.js'
import { uniq } from '../../helpers/factories.js'
import { createSystem, validImei } from '../../helpers/systems.js'
import { startStack, type Stack } from '../../helpers/stack.js'

export interface M3daSystem { uid: string, serial: string, imei: string, password: string | null, registrationPassword: string | null }

let imeiSeq = 600_000 + Math.floor(Math.random() * 100_000) * 10

/**
 * A firmware speaking M3DA with these communication parameters and the generic data tree (settings under `config`,
 * reboot/reset/connect actions under `system`); null: the seeded generic M3DA firmware itself.
 */
export async function m3daApplication (stack: Stack, parameters: Record<string, unknown> | null): Promise<string> {
  if (parameters === null) {
    const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/applications?type=${GENERIC_APPLICATION_TYPES.M3DA}` })
    const uid = (res.json().items as Array<{ uid: string }>)[0]?.uid
    expect(uid).toBeDefined()
    return uid as string
  }
  const res = await stack.call(stack.adminToken, {
    method: 'POST',
    url: '/api/v1/applications',
    payload: {
      name: 'M3DA firmware',
      revision: '1',
      type: uniq('app.m3da'),
      category: 'FIRMWARE',
      communication: [{ type: 'M3DA', commIdType: 'SERIAL', parameters }],
      data: genericDataTree()
    }
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().uid
}

/** A system with a gateway, the M3DA secrets given (absent: none) and these applications. */
export async function m3daSystem (stack: Stack, opts: { password?: string, registrationPassword?: string, applications: string[] }): Promise<M3daSystem> {
  const serial = uniq('SN').toUpperCase()
  const imei = validImei(++imeiSeq)
  const m3da = { ...(opts.password === undefined ? {} : { password: opts.password }), ...(opts.registrationPassword === undefined ? {} : { registrationPassword: opts.registrationPassword }) }
  const s = await createSystem(stack, {
    name: serial,
    gateway: { serialNumber: serial, imei },
    communication: Object.keys(m3da).length === 0 ? {} : { m3da },
    applications: opts.applications.map((uid) => ({ uid }))
  })
  return { uid: s.uid, serial, imei, password: opts.password ?? null, registrationPassword: opts.registrationPassword ?? null }
}

/** The stored M3DA password of a system (auto-registration writes it). */
export async function storedPassword (stack: Stack, systemUid: string): Promise<string | null> {
  const { rows } = await stack.db.query<{ p: string | null }>("SELECT communication->'m3da'->>'password' AS p FROM systems WHERE uid = $1", [systemUid])
  return rows[0]?.p ?? null
}

/** A listening stack and two firmwares: one admitting agents without security, the seeded generic M3DA one. */
export async function startM3daStack (): Promise<{ stack: Stack, open: string, generic: string }> {
  const stack = await startStack({ listen: true })
  return { stack, open: await m3daApplication(stack, { authentication: 'none' }), generic: await m3daApplication(stack, null) }
}
