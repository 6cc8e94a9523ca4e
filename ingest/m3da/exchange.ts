// One M3DA package once the device is known and authentic (docs/protocols/m3da.md): the Messages of its payload become
// one device message through the shared pipeline (ONE per envelope: the envelope is what the reply acknowledges, so one
// commit answers it whole, as one MQTT publish or one REST POST is one device message), its Responses end the tasks
// whose tickets they carry, and the reply payload carries a Response for each ticketed Message and the system's
// queued tasks, each with its ticket. The reply is built only after the commit.
import type { DeviceSession } from '../../core/services/ingest/devices.service.js'
import type { M3daDevice, M3daDevices } from './m3da-devices.js'
import type { DeviceTask } from '../../core/domain/device-task.js'
import { decodePayload, encodePayload, type M3daMessage, type M3daResponse } from '../../protocols/m3da/index.js'
import type { DecodedAck, Pipeline } from '../pipeline.js'
import { pointsOf } from './points.js'
import { responseMessage, taskMessages, type ActionKind } from './tasks.js'

export interface ExchangeDeps {
  m3da: Pick<M3daDevices, 'tickets' | 'tasksOf' | 'release'>
  pipeline: Pipeline
  /** The system's tasks to send in this reply, marked SENT (session.ts: taken from the store or pushed here). */
  tasks: () => Promise<readonly DeviceTask[]>
}

/** What to answer: the reply's status and payload (status 200 carries the payload). */
export type ExchangeOutcome = { status: 200, payload: Buffer } | { status: 400 | 503, payload: Buffer, reason: string }

const EMPTY = Buffer.alloc(0)

/** An action kind the agent runs as a command (tasks.ts); other kinds are not M3DA commands. */
const actionKind = (device: M3daDevice) => (commandId: string): ActionKind | undefined => device.actions.get(commandId)

/** The acks of the device's Responses whose tickets are its tasks' (other tickets are ignored). */
async function acksOf (deps: ExchangeDeps, systemUid: string, responses: readonly M3daResponse[]): Promise<{ acks: DecodedAck[], tickets: number[] }> {
  if (responses.length === 0) return { acks: [], tickets: [] }
  const tasks = await deps.m3da.tasksOf(systemUid, responses.map((r) => r.ticketId))
  const acks: DecodedAck[] = []
  const tickets: number[] = []
  for (const r of responses) {
    const uid = tasks.get(r.ticketId)
    if (uid === undefined) continue
    acks.push({ uid, status: r.status === 0 ? 'OK' : 'ERROR', message: r.status === 0 ? null : responseMessage(r.status, r.data) })
    tickets.push(r.ticketId)
  }
  return { acks, tickets }
}

/** The reply payload: Responses to the device's ticketed Messages, then the system's tasks with their tickets. */
async function replyPayload (deps: ExchangeDeps, device: M3daDevice, messages: readonly M3daMessage[]): Promise<Buffer> {
  const session = device.session
  const responses: M3daResponse[] = messages
    .filter((m) => m.ticketId !== null && m.ticketId > 0)
    .map((m) => ({ kind: 'response', ticketId: m.ticketId as number, status: 0, data: null }))
  const tasks = await deps.tasks()
  const tickets = await deps.m3da.tickets(session.systemUid, tasks.map((t) => t.uid))
  const out = tasks.flatMap((t) => taskMessages(t, tickets.get(t.uid) ?? 0, actionKind(device)))
  return responses.length === 0 && out.length === 0 ? EMPTY : encodePayload([...responses, ...out])
}

/**
 * Handles the payload of an authentic request.
 * @throws when the store did not take the data or the acks (answer 503: the device sends again)
 */
export async function exchange (deps: ExchangeDeps, device: M3daDevice, payload: Buffer): Promise<ExchangeOutcome> {
  const decoded = decodePayload(payload)
  if (!decoded.ok) {
    deps.pipeline.refuse(decoded.reason)
    return { status: 400, payload: EMPTY, reason: decoded.reason }
  }
  const messages = decoded.objects.filter((o): o is M3daMessage => o.kind === 'message')
  const responses = decoded.objects.filter((o): o is M3daResponse => o.kind === 'response')
  const session: DeviceSession = device.session
  if (messages.length > 0) {
    const outcome = await deps.pipeline.data(session, payload, (_bytes, receivedAt) => pointsOf(messages, receivedAt))
    if (outcome.kind !== 'stored') return { status: 400, payload: EMPTY, reason: outcome.kind === 'refused' ? outcome.reason : 'm3da.forbidden' }
  }
  const { acks, tickets } = await acksOf(deps, session.systemUid, responses)
  if (acks.length > 0) {
    await deps.pipeline.acks(session, payload, () => ({ ok: true, acks }))
    await deps.m3da.release(session.systemUid, tickets)
  }
  return { status: 200, payload: await replyPayload(deps, device, messages) }
}
