// A simulated M3DA agent (docs/protocols/m3da.md): it initiates every exchange (§2.5), so data, acknowledgements
// (Responses) and a plain "anything for me?" (an envelope without payload, at each poll or SMS wake-up) each make one
// package, and the service's reply carries the tasks queued for it as ticketed Messages. Envelopes go over TCP or
// HTTP (m3da-link.ts), secured or not (m3da-session.ts); payloads are built and read by m3da-objects.ts.
import { setTimeout as sleep } from 'node:timers/promises'
import type { Task } from '../../protocols/airvantage/index.js'
import { decodePayload, encodePayload, type M3daMessage } from '../../protocols/m3da/index.js'
import { m3daLink } from './m3da-link.js'
import { messagesOf, responsesOf, tasksOf, type OutgoingObject } from './m3da-objects.js'
import { DEFAULT_SERVER_ID, type M3daSecurity } from './m3da-options.js'
import { m3daSession, type M3daSession } from './m3da-session.js'
import { TransportError, type DeviceTransport, type TasksHandler } from './transport.js'

const RECONNECT_ATTEMPTS = 10
const RECONNECT_PERIOD_MS = 1000

export interface M3daDeviceOptions {
  /** tcp://host:port (the service's M3DA_PORT) or http://host:port/device/com. */
  url: string
  /** The envelope header `id`: the gateway serial number (or IMEI) the system is registered with. */
  deviceId: string
  /** The M3DA password, or the registration password of an auto-registering device. */
  password: string
  security: M3daSecurity
  /** The service's M3DA_SERVER_ID (default AIRVANTAGE). */
  serverId?: string
}

export interface M3daDevice extends DeviceTransport {
  readonly session: M3daSession
}

/**
 * Opens the agent's link; an auto-registering agent registers at once (@throws TransportError when the service
 * refuses it). The others authenticate with their first request (its first signed envelope is challenged: the
 * agent has no nonce from the service yet).
 */
export async function connectM3daDevice (opts: M3daDeviceOptions): Promise<M3daDevice> {
  const link = m3daLink(opts.url)
  const session = m3daSession({ link, deviceId: opts.deviceId, password: opts.password, security: opts.security, serverId: opts.serverId ?? DEFAULT_SERVER_ID })
  let handler: TasksHandler | undefined
  const early: Task[][] = []
  let closed = false
  // One package at a time (§2.5): every exchange waits for the one before it.
  let queue: Promise<unknown> = Promise.resolve()
  // The last reply carried Messages: it was also a request (§2.5), and the agent's next envelope is its answer.
  let answerOwed = false

  function deliver (messages: readonly M3daMessage[]): void {
    if (messages.length === 0) return
    const tasks = tasksOf(messages, Date.now())
    if (handler === undefined) early.push(tasks)
    else handler(tasks)
  }

  async function exchange (objects: OutgoingObject[]): Promise<void> {
    const turn = queue.then(async () => {
      if (closed) throw new TransportError('device closed')
      // An envelope without payload right after a reply that carried Messages would read as the agent's reply-only
      // answer to it (§2.5), which gets no reply: that poll is left out, the Responses to those Messages come next.
      if (objects.length === 0 && answerOwed) { answerOwed = false; return }
      const reply = await session.request(encodePayload(objects))
      const decoded = decodePayload(reply)
      if (!decoded.ok) throw new TransportError(`M3DA reply payload unreadable: ${decoded.reason}`)
      // Responses to the agent's own tickets need nothing more: it sends none (its data is acknowledged by the reply).
      const messages = decoded.objects.filter((o): o is M3daMessage => o.kind === 'message')
      answerOwed = messages.length > 0
      deliver(messages)
    })
    queue = turn.catch(() => {})
    await turn
  }

  await session.register()

  return {
    protocol: 'M3DA',
    session,
    sendData: async (points) => { await exchange(messagesOf(points)) },
    async sendAcks (acks) {
      const responses = responsesOf(acks)
      if (responses.length > 0) await exchange(responses)
    },
    onTasks (h) {
      handler = h
      for (const tasks of early.splice(0)) h(tasks)
    },
    checkTasks: async () => { await exchange([]) },
    // A reboot closes the connection once the package in flight is answered; the next exchange opens another.
    async disconnect () {
      await queue
      answerOwed = false // a new connection is a new peer
      await link.disconnect()
    },
    // Back from a reboot the agent connects at once (Mihini's on-boot policy) and reports; the service may be
    // briefly away too.
    async reconnect () {
      for (let attempt = 1; ; attempt++) {
        try { await link.connect(); return } catch (err) {
          if (attempt >= RECONNECT_ATTEMPTS || closed) throw err
          await sleep(RECONNECT_PERIOD_MS)
        }
      }
    },
    get lastTraffic () { return link.lastTraffic },
    async close () {
      closed = true
      await queue
      await link.disconnect()
    }
  }
}
