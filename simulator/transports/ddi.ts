// A simulated hawkBit DDI controller (docs/protocols/ddi.md), as SWUpdate's suricatta or RAUC's hawkBit updater runs
// on a Linux gateway: it polls `/ddi/<tenant>/controller/v1/<serial>` with `Authorization: TargetToken <REST
// password>`, follows `deploymentBase` to the deployment (its artifacts' links, sizes and SHA-256), says `proceeding`
// at once and hands the deployment to the device's task loop as a software task (software.ts downloads, checks and
// installs); the loop's answer becomes the `closed` feedback, success or failure with its message as details. A
// `cancelAction` is confirmed (`closed`, success). Its data messages are configData attributes (`PUT .../configData`,
// every value as text), which the service stores as `ddi.<id>`.
import type { Point, Task } from '../../protocols/airvantage/index.js'
import { DDI_DEPLOYMENT } from '../devices/software.js'
import { httpDevice } from './http-call.js'
import { TransportError, type DeviceTransport, type TasksHandler } from './transport.js'

export interface DdiDeviceOptions {
  /** Base URL of the service, e.g. http://localhost:8080. */
  url: string
  /** The company's uid, or DEFAULT for the service's first company. */
  tenant: string
  /** The gateway serial number. */
  controllerId: string
  /** The system's REST password. */
  token: string
}

const ACTION = 'ddi-action-'
// Deployments handed to the loop and not closed yet (the poll offers one until it is closed); past this, the oldest
// is forgotten and described again if offered again.
const REMEMBERED = 100

type Json = Record<string, any>

/** The deployment as a task of the device's loop: the application's name and version, each artifact to fetch. */
function taskOf (id: string, doc: Json): Task {
  const chunk = (doc.deployment?.chunks?.[0] ?? {}) as Json
  const artifacts = ((chunk.artifacts ?? []) as Json[]).map((a) => ({
    filename: String(a.filename ?? ''),
    url: String(a._links?.['download-http']?.href ?? a._links?.download?.href ?? ''),
    sha256: String(a.hashes?.sha256 ?? ''),
    size: typeof a.size === 'number' ? a.size : -1
  }))
  return { uid: ACTION + id, timestamp: Date.now(), command: { id: DDI_DEPLOYMENT, params: { name: String(chunk.name ?? ''), version: String(chunk.version ?? ''), artifacts } } }
}

const feedback = (id: string, execution: string, finished: 'success' | 'failure' | 'none', details: string[]): string =>
  JSON.stringify({ id, status: { execution, result: { finished }, details } })

export function ddiDevice (opts: DdiDeviceOptions): DeviceTransport {
  const base = `${opts.url.replace(/\/+$/, '')}/ddi/${encodeURIComponent(opts.tenant)}/controller/v1/${encodeURIComponent(opts.controllerId)}`
  const http = httpDevice(base, `TargetToken ${opts.token}`)
  const offered = new Map<string, { task: Task, href: string }>()
  let handler: TasksHandler | undefined

  async function call (method: 'GET' | 'POST' | 'PUT', target: string, body?: string): Promise<Json | undefined> {
    const text = await http.call(method, target, body)
    try { return text === '' ? undefined : JSON.parse(text) as Json } catch { throw new TransportError(`${method} ${target}: an answer that is no JSON`) }
  }

  /** The deployment offered: described and told `proceeding` the first time, handed to the loop at every poll. */
  async function deployment (href: string): Promise<Task> {
    const id = href.slice(href.lastIndexOf('/') + 1)
    const known = offered.get(id)
    if (known !== undefined) return known.task
    const task = taskOf(id, await call('GET', href) ?? {})
    await call('POST', `${href}/feedback`, feedback(id, 'proceeding', 'none', ['downloading']))
    offered.set(id, { task, href })
    if (offered.size > REMEMBERED) offered.delete(offered.keys().next().value as string)
    return task
  }

  return {
    protocol: 'DDI',
    async sendData (points: readonly Point[]) {
      const data = Object.fromEntries(points.map((p) => [p.dataId, p.value === null ? '' : String(p.value)]))
      await call('PUT', '/configData', JSON.stringify({ mode: 'merge', data }))
    },
    async sendAcks (acks) {
      for (const a of acks) {
        if (!a.uid.startsWith(ACTION)) continue
        const id = a.uid.slice(ACTION.length)
        const href = offered.get(id)?.href ?? `/deploymentBase/${id}`
        await call('POST', `${href}/feedback`, feedback(id, 'closed', a.status === 'OK' ? 'success' : 'failure', a.message === null ? [] : [a.message]))
        offered.delete(id)
      }
    },
    onTasks (h) { handler = h },
    async checkTasks () {
      const links = (await call('GET', ''))?._links as Json | undefined
      const cancel = links?.cancelAction?.href as string | undefined
      if (cancel !== undefined) {
        const id = cancel.slice(cancel.lastIndexOf('/') + 1)
        await call('POST', `${cancel}/feedback`, feedback(id, 'closed', 'success', ['cancelled']))
        return
      }
      const href = links?.deploymentBase?.href as string | undefined
      if (href !== undefined) handler?.([await deployment(href)])
    },
    // Each call stands alone over HTTP, as for a REST device.
    async disconnect () {},
    async reconnect () {},
    lastTraffic: http.lastTraffic,
    async close () { http.close() }
  }
}
