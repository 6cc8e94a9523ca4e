// Systems for the LwM2M tests (docs/protocols/lwm2m.md): a gateway whose serial number is the endpoint name, an
// application speaking LWM2M with the given parameters (`security: "none"` admits NoSec devices), and optionally a
// pre-shared key in communication.lwm2m.
import { randomBytes } from 'node:crypto'
import { expect } from 'vitest'
import { genericDataTree } from '../../../core/domain/generic-applications.js'
import type { DataNode } from '../../../core/domain/application-model.js'
import { uniq } from '../../helpers/factories.js'
import { createSystem, validImei } from '../../helpers/systems.js'
import { startStack, type Stack } from '../../helpers/stack.js'

export interface Lwm2mSystem { uid: string, serial: string, imei: string, psk: Buffer | null, pskIdentity: string | null }

let imeiSeq = 700_000 + Math.floor(Math.random() * 100_000) * 10

/** An application speaking LWM2M with these parameters and data tree (default: the generic one); answers its uid. */
export async function lwm2mApplication (stack: Stack, parameters: Record<string, unknown>, data: DataNode[] = genericDataTree(), token = stack.adminToken): Promise<string> {
  const res = await stack.call(token, {
    method: 'POST',
    url: '/api/v1/applications',
    payload: { name: 'LwM2M firmware', revision: '1', type: uniq('app.lwm2m'), category: 'FIRMWARE', communication: [{ type: 'LWM2M', commIdType: 'SERIAL', parameters }], data }
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().uid
}

/** A system with a gateway, a PSK when `psk` (and its identity when given), and these applications. */
export async function lwm2mSystem (stack: Stack, opts: { applications: string[], psk?: boolean, pskIdentity?: string, token?: string }): Promise<Lwm2mSystem> {
  const serial = uniq('LW').toUpperCase()
  const imei = validImei(++imeiSeq)
  const psk = opts.psk === true ? randomBytes(16) : null
  const lwm2m = psk === null ? undefined : { pskSecretHex: psk.toString('hex'), ...(opts.pskIdentity === undefined ? {} : { pskIdentity: opts.pskIdentity }) }
  const s = await createSystem(stack, {
    name: serial,
    gateway: { serialNumber: serial, imei },
    communication: lwm2m === undefined ? {} : { lwm2m },
    applications: opts.applications.map((uid) => ({ uid }))
  }, { token: opts.token })
  return { uid: s.uid, serial, imei, psk, pskIdentity: opts.pskIdentity ?? null }
}

/** The stored registrations of a system. */
export async function registrationsOf (stack: Stack, systemUid: string): Promise<Array<Record<string, unknown>>> {
  const { rows } = await stack.db.query<Record<string, unknown>>('SELECT * FROM lwm2m_registrations WHERE system_uid = $1', [systemUid])
  return rows
}

/** A listening stack, an application admitting NoSec devices and one requiring DTLS. */
export async function startLwm2mStack (): Promise<{ stack: Stack, nosec: string, secured: string }> {
  const stack = await startStack({ listen: true })
  return { stack, nosec: await lwm2mApplication(stack, { security: 'none' }), secured: await lwm2mApplication(stack, { security: 'psk' }) }
}
