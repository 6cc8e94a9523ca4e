// Mosquitto's dynamic security plugin administered over MQTT (mosquitto.org/documentation/dynamic-security): JSON
// `{"commands": [...]}` published on its control topic, answers `{"responses": [...]}` on the response topic. Every
// process of a cluster may administer at once with the MQTT_URL account, and every subscriber of the response topic
// receives every answer: each command carries a correlationData of this client, and only those are taken.
import { randomBytes } from 'node:crypto'
import mqtt, { type MqttClient } from 'mqtt'

const CONTROL = '$CONTROL/dynamic-security/v1'
const RESPONSE = `${CONTROL}/response`
// Commands per control message: big enough that a full sync of a large fleet is a few hundred messages, small enough
// that one answer stays a small payload.
const PER_MESSAGE = 200

export interface DynsecCommand { command: string, [field: string]: unknown }
export interface DynsecResponse { command: string, error?: string, data?: Record<string, unknown> }

export interface DynsecClient {
  /** Runs the commands in order; answers one response per command. @throws when the broker does not answer in time */
  run (commands: readonly DynsecCommand[]): Promise<DynsecResponse[]>
  /** Calls `listener` each time the client is connected and ready for commands again (after the broker was away). */
  onReady?: (listener: () => void) => void
  close (): Promise<void>
}

export class BrokerUnavailableError extends Error {
  /**
   * `lost`: the broker was reached and has closed the connection since (a restart, most often), so it is likely back
   * soon; otherwise it was never reached.
   */
  constructor (reason: string, readonly lost = false) {
    super(`MQTT broker: ${reason}`)
    this.name = 'BrokerUnavailableError'
  }
}

/** The account of MQTT_URL as mqtt.js options; the password never goes further than the connection. */
export function brokerAccount (url: string): { url: string, username: string | undefined, password: string | undefined } {
  const u = new URL(url)
  const username = u.username === '' ? undefined : decodeURIComponent(u.username)
  const password = u.password === '' ? undefined : decodeURIComponent(u.password)
  u.username = ''
  u.password = ''
  return { url: u.toString(), username, password }
}

interface Waiting { resolve: (r: DynsecResponse) => void, reject: (err: Error) => void }

/** Hands each response of a control message to the command of this client waiting for it. */
function answered (waiting: Map<string, Waiting>, payload: Buffer): void {
  let doc: unknown
  try { doc = JSON.parse(payload.toString('utf8')) } catch { return }
  const responses = (doc as { responses?: unknown }).responses
  if (!Array.isArray(responses)) return
  for (const r of responses as Array<DynsecResponse & { correlationData?: unknown }>) {
    const w = typeof r.correlationData === 'string' ? waiting.get(r.correlationData) : undefined
    if (w !== undefined) { waiting.delete(r.correlationData as string); w.resolve(r) }
  }
}

/**
 * Fails the commands waiting on a connection that closed: their answers may never come (a broker restarted, as
 * deploy/mosquitto/start.sh does for a new trust bundle), so the caller tries again now rather than at the timeout.
 */
function failAll (waiting: Map<string, Waiting>): void {
  for (const [id, w] of waiting) { waiting.delete(id); w.reject(new BrokerUnavailableError('connection closed before dynamic security answered', true)) }
}

/** A client of the dynamic security plugin at MQTT_URL, connected at first use. */
export function createDynsecClient (mqttUrl: string, opts: { timeoutMs?: number } = {}): DynsecClient {
  const timeoutMs = opts.timeoutMs ?? 10_000
  const prefix = randomBytes(6).toString('hex')
  let seq = 0
  const waiting = new Map<string, Waiting>()
  let client: MqttClient | undefined
  let subscribed: Promise<void> | undefined
  let firstAttempt: Promise<void> | undefined
  let connectedOnce = false
  const ready: Array<() => void> = []

  // Connected and subscribed to the answers. While the broker is away a command fails at once (mqtt.js goes on
  // reconnecting): a change of a system then does not keep its API request waiting (dynsec-sync.ts retries it).
  function connect (): Promise<void> {
    if (client?.connected === true && subscribed !== undefined) return subscribed
    if (client !== undefined) return firstAttempt ?? Promise.reject(new BrokerUnavailableError('not connected', connectedOnce))
    const { url, username, password } = brokerAccount(mqttUrl)
    const c = mqtt.connect(url, { username, password, clientId: `fleet-dynsec-${prefix}`, clean: true, reconnectPeriod: 1000, connectTimeout: timeoutMs })
    client = c
    c.on('message', (topic, payload) => { if (topic === RESPONSE) answered(waiting, payload) })
    // Subscribed again at every (re)connection: the session is clean.
    c.on('connect', () => {
      connectedOnce = true
      subscribed = c.subscribeAsync(RESPONSE, { qos: 1 }).then(() => { for (const l of ready) l() }, () => {})
    })
    // Commands sent while the first connection is on its way wait for it; once it failed, they fail at once.
    const attempt = new Promise<void>((resolve, reject) => {
      const fail = (err?: Error): void => { reject(new BrokerUnavailableError(err?.message ?? 'connection closed')) }
      c.once('error', fail)
      c.once('close', fail)
      c.once('connect', () => {
        c.off('error', fail)
        c.off('close', fail)
        ;(subscribed ?? Promise.resolve()).then(resolve, reject)
      })
    })
    c.on('error', () => {}) // a lost connection shows as commands failing; mqtt.js reconnects
    c.on('close', () => { failAll(waiting) })
    firstAttempt = attempt
    attempt.then(() => { firstAttempt = undefined }, () => { firstAttempt = undefined })
    return attempt
  }

  async function runChunk (commands: readonly DynsecCommand[]): Promise<DynsecResponse[]> {
    const ids = commands.map(() => `${prefix}:${++seq}`)
    const answers = Promise.all(ids.map((id) => new Promise<DynsecResponse>((resolve, reject) => { waiting.set(id, { resolve, reject }) })))
    // A connection that closes while this chunk still waits for it fails the answers before anything awaits them:
    // handled here, that failure is the connect's (below) instead of an unhandled rejection, which ends the process.
    answers.catch(() => {})
    const payload = JSON.stringify({ commands: commands.map((c, i) => ({ ...c, correlationData: ids[i] })) })
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => { reject(new BrokerUnavailableError(`no answer of dynamic security within ${timeoutMs} ms`)) }, timeoutMs)
    })
    try {
      await Promise.race([connect(), timeout])
      client?.publish(CONTROL, payload, { qos: 1 })
      return await Promise.race([answers, timeout])
    } finally {
      clearTimeout(timer)
      for (const id of ids) waiting.delete(id)
    }
  }

  return {
    async run (commands) {
      const out: DynsecResponse[] = []
      for (let i = 0; i < commands.length; i += PER_MESSAGE) out.push(...await runChunk(commands.slice(i, i + PER_MESSAGE)))
      return out
    },
    onReady (listener) { ready.push(listener) },
    async close () {
      ready.length = 0
      const c = client
      client = undefined
      subscribed = undefined
      if (c !== undefined) await c.endAsync(true)
    }
  }
}
