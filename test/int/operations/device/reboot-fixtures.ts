// What the reboot, reset and wake-up tests share (docs/operations.md#bulk-operations): applications that
// declare actions (docs/api.md#applications-and-templates), systems carrying them with a gateway and device passwords,
// the three routes, and the device tasks the service wrote, read straight from the store.
import type { LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'
import { uniq } from '../../../helpers/factories.js'
import { countOperations, type Json } from '../../../helpers/operations.js'
import { createSystem, expectError, validImei } from '../../../helpers/systems.js'
import type { Stack } from '../../../helpers/stack.js'

export type ActionKind = 'reboot' | 'reset' | 'wakeup'
export type ActionType = 'REBOOT' | 'RESET' | 'CONNECT'

/** Per kind: its action type, operation type and codes (wake-up's are ours: core/operations/kinds/wakeup.ts). */
export const KINDS: Record<ActionKind, { actionType: ActionType, type: string, invalid: string, missing: string }> = {
  reboot: { actionType: 'REBOOT', type: 'SYSTEM_REBOOT', invalid: 'reboot.invalid.action', missing: 'operation.reboot.missing.reboot.action.in.system' },
  reset: { actionType: 'RESET', type: 'SYSTEM_RESET', invalid: 'reset.invalid.action', missing: 'operation.reset.missing.reset.action.in.system' },
  wakeup: { actionType: 'CONNECT', type: 'SYSTEM_WAKEUP', invalid: 'wakeup.invalid.action', missing: 'operation.wakeup.missing.connect.action.in.system' }
}

/** POST /api/v1/operations/systems/{kind}. */
export async function postAction (stack: Stack, kind: ActionKind, body: Json, token = stack.adminToken): Promise<LightMyRequestResponse> {
  return await stack.call(token, { method: 'POST', url: `/api/v1/operations/systems/${kind}`, payload: body })
}

/** A data tree with these actions under node `sys` (ids `sys.<id>`), and a setting `conf.level`. */
export function actionTree (actions: Array<[string, ActionType]>): Json[] {
  return [
    { id: 'conf', elementType: 'node', data: [{ id: 'level', elementType: 'setting', type: 'int' }] },
    { id: 'sys', elementType: 'node', data: actions.map(([id, actionType]) => ({ id, elementType: 'action', actionType })) }
  ]
}

/** A company application (POST /api/v1/applications with its communication and data); answers its uid. */
export async function newApplication (stack: Stack, opts: { category?: 'FIRMWARE' | 'SOFTWARE', protocols?: string[], data?: Json[] } = {}): Promise<string> {
  const res = await stack.call(stack.adminToken, {
    method: 'POST',
    url: '/api/v1/applications',
    payload: {
      name: 'Action app',
      revision: '1',
      type: uniq('app.actions'),
      category: opts.category ?? 'FIRMWARE',
      communication: (opts.protocols ?? ['MQTT']).map((type) => ({ type, commIdType: 'SERIAL' })),
      data: opts.data ?? []
    }
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().uid
}

let imeiSeq = 800_000 + Math.floor(Math.random() * 100_000) * 10

export interface TestSystem { uid: string, serial: string, mqttPassword: string, restPassword: string }

/**
 * A system with these applications, a gateway (serial number, IMEI) and both device passwords; `passwords: false`
 * leaves it without any (no identifiers for MQTT nor REST).
 */
export async function actionSystem (stack: Stack, applications: string[], opts: { passwords?: boolean, labels?: string[] } = {}): Promise<TestSystem> {
  const serial = uniq('SN').toUpperCase()
  const mqttPassword = uniq('mqtt-pw')
  const restPassword = uniq('rest-pw')
  const s = await createSystem(stack, {
    name: serial,
    labels: opts.labels ?? [],
    gateway: { serialNumber: serial, imei: validImei(++imeiSeq) },
    ...(opts.passwords === false ? {} : { communication: { mqtt: { password: mqttPassword }, rest: { password: restPassword } } }),
    applications: applications.map((uid) => ({ uid }))
  })
  return { uid: s.uid, serial, mqttPassword, restPassword }
}

export interface StoredDeviceTask { uid: string, systemUid: string, protocol: string, state: string, body: Json, operationTaskUid: string | null }

/** The device tasks an operation wrote, oldest first. */
export async function deviceTasksOf (stack: Stack, operationUid: string): Promise<StoredDeviceTask[]> {
  const { rows } = await stack.db.query<StoredDeviceTask>(
    `SELECT uid, system_uid AS "systemUid", protocol, state, body, operation_task_uid AS "operationTaskUid" FROM device_tasks
     WHERE operation_uid = $1 ORDER BY created_at, uid`, [operationUid])
  return rows.map((r) => ({ ...r, body: typeof r.body === 'string' ? JSON.parse(r.body) : r.body }))
}

/** The request is refused with `code` (400) and creates no operation and no device task. */
export async function refused (stack: Stack, kind: ActionKind, body: Json, code: string): Promise<Json> {
  const before = await countOperations(stack)
  const tasksBefore = (await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM device_tasks')).rows[0]?.n
  const res = expectError(await postAction(stack, kind, body), code)
  expect(await countOperations(stack)).toBe(before)
  expect((await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM device_tasks')).rows[0]?.n).toBe(tasksBefore)
  return res
}
