// Reporting (docs/protocols/lwm2m.md; OMA LwM2M Core §6.4 Information Reporting): once a device has registered, the
// server observes the object instances its application names (default /3/0, /4/0, /6/0) among those the device
// announced, and each Read answer or notification becomes one device message with protocol LWM2M through the one
// ingest pipeline (ingest/pipeline.ts). A payload that does not decode is refused and counted, nothing stored.
import { CoapError, coapRequest, isSuccessCode, OptionNumber, getUintOption, type CoapMessage } from '../../protocols/coap/index.js'
import { decodeContent, formatPath, type LwM2mPath } from '../../protocols/lwm2m/index.js'
import type { Logger } from '../../core/logger.js'
import type { Pipeline, PipelineOutcome } from '../pipeline.js'
import type { DeviceLimits } from '../device-limits.js'
import type { LiveRegistration } from './live.js'
import { pointsOf } from './points.js'

export interface ReportingDeps {
  pipeline: Pipeline
  limits: DeviceLimits
  log: Logger
  /** How long a request to a device may take (ms). */
  timeoutMs: number
}

/** The path of a request to the device: under its alternate root path when it announced one (§6.2.1). */
export function devicePath (r: Pick<LiveRegistration, 'links'>, path: LwM2mPath): string {
  const root = r.links.rootPath === '/' ? '' : r.links.rootPath.replace(/\/$/, '')
  return root + formatPath(path)
}

/** The wanted instances the device announced (an object it listed without instances has none to observe). */
export function toObserve (r: Pick<LiveRegistration, 'links' | 'wanted'>): LwM2mPath[] {
  return r.wanted.filter((p) => r.links.objects.some((o) => o.objectId === p.objectId && (p.instanceId === undefined || o.instances.includes(p.instanceId))))
}

export function createReporting ({ pipeline, limits, log, timeoutMs }: ReportingDeps) {
  /** Stores the values of a Read answer or notification of `path`; never throws (a store failure is logged). */
  async function store (r: LiveRegistration, path: LwM2mPath, msg: CoapMessage): Promise<PipelineOutcome> {
    if (!isSuccessCode(msg.code)) return pipeline.refuse('lwm2m.read.failed')
    const format = getUintOption(msg, OptionNumber.ContentFormat)
    if (format === undefined) return pipeline.refuse('lwm2m.content.format.missing')
    if (!limits.admit(r.session.systemUid, msg.payload.length).ok) return pipeline.refuse('device.rate.limited')
    try {
      return await pipeline.data(r.session, msg.payload, (payload, receivedAt) => {
        const decoded = decodeContent(format, payload, path)
        if (!decoded.ok) return decoded
        if (decoded.values.length === 0) return { ok: false, reason: 'lwm2m.content.empty' }
        return { ok: true, points: pointsOf(decoded.values, receivedAt) }
      })
    } catch (err) {
      log.warn({ err, systemUid: r.session.systemUid }, 'LwM2M values not stored')
      return { kind: 'refused', reason: 'store.unavailable' }
    }
  }

  /** Observes what the device should report; an instance the device refuses or does not answer is left out. */
  async function observeAll (r: LiveRegistration): Promise<void> {
    await Promise.all(toObserve(r).map(async (path) => {
      try {
        const o = await r.link.endpoint.observe(r.link.peer, coapRequest('GET', devicePath(r, path)), {
          onNotification: (msg) => { store(r, path, msg).catch(() => {}) }
        }, { timeoutMs })
        if (o.active) r.observations.push(o)
        await store(r, path, o.response)
      } catch (err) {
        if (!(err instanceof CoapError)) throw err
        log.debug({ code: err.code, systemUid: r.session.systemUid, path: formatPath(path) }, 'LwM2M observe not made')
      }
    }))
  }

  return { store, observeAll }
}

export type Reporting = ReturnType<typeof createReporting>
