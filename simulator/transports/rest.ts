// An AirVantage REST device (docs/protocols/rest.md, docs/devices.md): HTTP Basic with the serial
// number and the system's REST password; POST /device/messages (200 once stored), GET /device/tasks (the
// pending tasks), POST /device/acks.
import { decodeTasks, encodeAcks, encodeData, type Task } from '../../protocols/airvantage/index.js'
import { TransportError, type DeviceTransport, type TasksHandler } from './transport.js'

export interface RestDeviceOptions {
  /** Base URL of the service, e.g. http://localhost:8080. */
  url: string
  username: string
  password: string
}

const HEADERS = 200 // request line and headers, roughly: for the link counters

export function restDevice (opts: RestDeviceOptions): DeviceTransport {
  const authorization = 'Basic ' + Buffer.from(`${opts.username}:${opts.password}`).toString('base64')
  const base = opts.url.replace(/\/+$/, '')
  const traffic = { sent: 0, received: 0 }
  let handler: TasksHandler | undefined
  let closed = false

  async function call (method: 'GET' | 'POST', path: string, body?: string): Promise<string> {
    if (closed) throw new TransportError('device closed')
    let res: Response
    try {
      res = await fetch(base + path, {
        method,
        headers: body === undefined ? { authorization } : { authorization, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body })
      })
    } catch (err) {
      throw new TransportError(`${method} ${path}: ${(err as Error).message}`)
    }
    const text = await res.text()
    traffic.sent = HEADERS + (body === undefined ? 0 : Buffer.byteLength(body))
    traffic.received = HEADERS + Buffer.byteLength(text)
    if (res.status !== 200) throw new TransportError(`${method} ${path}: ${res.status} ${text}`, res.status)
    return text
  }

  return {
    protocol: 'REST',
    sendData: async (points) => { await call('POST', '/device/messages', encodeData(points)) },
    sendAcks: async (acks) => { await call('POST', '/device/acks', encodeAcks(acks)) },
    onTasks (h) { handler = h },
    async checkTasks () {
      const text = await call('GET', '/device/tasks')
      const decoded = decodeTasks(text)
      if (!decoded.ok) throw new TransportError(`GET /device/tasks: ${decoded.reason}`)
      const tasks: Task[] = decoded.tasks
      if (tasks.length > 0) handler?.(tasks)
    },
    // Each call stands alone over HTTP: a rebooting REST device simply makes none (the device pauses its traffic).
    async disconnect () {},
    async reconnect () {},
    lastTraffic: traffic,
    async close () { closed = true }
  }
}
