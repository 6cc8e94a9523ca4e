// An AirVantage REST device (docs/protocols/rest.md, docs/devices.md): HTTP Basic with the serial
// number and the system's REST password; POST /device/messages (200 once stored), GET /device/tasks (the
// pending tasks), POST /device/acks.
import { decodeTasks, encodeAcks, encodeData, type Task } from '../../protocols/airvantage/index.js'
import { httpDevice } from './http-call.js'
import { TransportError, type DeviceTransport, type TasksHandler } from './transport.js'

export interface RestDeviceOptions {
  /** Base URL of the service, e.g. http://localhost:8080. */
  url: string
  username: string
  password: string
}

export function restDevice (opts: RestDeviceOptions): DeviceTransport {
  const http = httpDevice(opts.url, 'Basic ' + Buffer.from(`${opts.username}:${opts.password}`).toString('base64'))
  const call = http.call
  let handler: TasksHandler | undefined

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
    lastTraffic: http.lastTraffic,
    async close () { http.close() }
  }
}
