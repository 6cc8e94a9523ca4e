// Real MQTT devices for the safe-rollout, abort and device-cancel tests: systems carrying the seeded generic
// MQTT firmware (core/domain/generic-applications.ts: its REBOOT action `system.reboot`), mqtt.js clients subscribed
// to their tasks topic, the reboot route and cancel.
import type { LightMyRequestResponse } from 'fastify'
import type { MqttClient } from 'mqtt'
import { GENERIC_APPLICATION_TYPES } from '../../core/domain/generic-applications.js'
import type { DeviceTask } from '../../core/domain/device-task.js'
import { connectDevice, eventually, publish, subscribe } from './devices.js'
import { uniq } from './factories.js'
import { createSystem, validImei } from './systems.js'
import type { Stack } from './stack.js'

export interface MqttDevice { uid: string, serial: string, password: string }

let imeiSeq = 700_000 + Math.floor(Math.random() * 100_000) * 10

/** The uid of the seeded generic MQTT firmware. */
export async function genericMqtt (stack: Stack): Promise<string> {
  const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/applications?type=${GENERIC_APPLICATION_TYPES.MQTT}` })
  const uid = (res.json() as { items: Array<{ uid: string, type: string }> }).items.find((a) => a.type === GENERIC_APPLICATION_TYPES.MQTT)?.uid
  if (uid === undefined) throw new Error(`no generic MQTT firmware: ${res.statusCode} ${res.body}`)
  return uid
}

/** `n` systems labelled `label` (created in order), each with the generic MQTT firmware and an MQTT password. */
export async function mqttDevices (stack: Stack, n: number, label: string): Promise<MqttDevice[]> {
  const app = await genericMqtt(stack)
  const out: MqttDevice[] = []
  for (let i = 0; i < n; i++) {
    const serial = uniq('SN').toUpperCase()
    const password = uniq('pw')
    const s = await createSystem(stack, {
      name: `${label}-${i + 1}`,
      labels: [label],
      gateway: { serialNumber: serial, imei: validImei(++imeiSeq) },
      communication: { mqtt: { password } },
      applications: [{ uid: app }]
    })
    out.push({ uid: s.uid as string, serial, password })
  }
  return out
}

async function lastComm (stack: Stack, systemUid: string): Promise<number> {
  const { rows } = await stack.db.query<{ t: string | number | null }>('SELECT last_comm_date AS t FROM system_state WHERE system_uid = $1', [systemUid])
  return rows[0]?.t == null ? -1 : Number(rows[0].t)
}

/**
 * The device connected over MQTT and subscribed to its tasks, once the delivery its subscription starts is done (it
 * marks the system communicating, in the transaction that takes the waiting tasks); `got` collects every task payload.
 */
export async function online (stack: Stack, d: MqttDevice): Promise<{ client: MqttClient, got: DeviceTask[][] }> {
  const client = await connectDevice(stack.mqttUrl, d.serial, d.password)
  const got: DeviceTask[][] = []
  client.on('message', (topic, payload) => { if (topic.endsWith('/tasks/json')) got.push(JSON.parse(payload.toString('utf8')) as DeviceTask[]) })
  const before = await lastComm(stack, d.uid)
  const granted = await subscribe(client, `${d.serial}/tasks/json`)
  if (granted[0] !== 1) throw new Error(`tasks subscription refused: ${granted.join(',')}`)
  await eventually(async () => await lastComm(stack, d.uid) > before, 5000, 'the subscription delivery')
  return { client, got }
}

/** Acks a task the way a device does (docs/devices.md: `<serial>/acks/json`). */
export async function ack (client: MqttClient, d: MqttDevice, taskUid: string, status: 'OK' | 'ERROR', message?: string): Promise<void> {
  const code = await publish(client, `${d.serial}/acks/json`, JSON.stringify([{ uid: taskUid, status, ...(message === undefined ? {} : { message }) }]))
  if (code !== 0) throw new Error(`ack refused: ${String(code)}`)
}

export async function postReboot (stack: Stack, body: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return await stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/reboot', payload: body })
}

export async function cancelOperation (stack: Stack, uid: string): Promise<LightMyRequestResponse> {
  return await stack.call(stack.adminToken, { method: 'POST', url: `/api/v1/operations/${uid}/cancel` })
}

/** The device task rows of a system: state and whether it was ever sent. */
export async function deviceTasksOfSystem (stack: Stack, systemUid: string): Promise<Array<{ uid: string, state: string, sentAt: number | null }>> {
  const { rows } = await stack.db.query<{ uid: string, state: string, sent_at: string | number | null }>(
    'SELECT uid, state, sent_at FROM device_tasks WHERE system_uid = $1 ORDER BY created_at, uid', [systemUid])
  return rows.map((r) => ({ uid: r.uid, state: r.state, sentAt: r.sent_at === null ? null : Number(r.sent_at) }))
}
