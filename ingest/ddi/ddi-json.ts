// The hawkBit DDI documents (docs/protocols/ddi.md): what the service answers a controller (its poll, a deployment, a
// cancel) and what it reads from one (feedback, configData). Readers never throw on input: a body that is no such
// document is a reason, answered 400.
import type { DataPoint } from '../../core/domain/device-message.js'
import type { Decoded } from '../pipeline.js'

/** hawkBit's sleep is HH:MM:SS, and agents parse the hours as a time of day (SWUpdate: strptime's %H, at most 23). */
export const MAX_SLEEP_S = 23 * 3600 + 59 * 60 + 59

export function sleepText (seconds: number): string {
  const s = Math.min(MAX_SLEEP_S, Math.max(1, Math.floor(seconds)))
  const two = (n: number): string => String(n).padStart(2, '0')
  return `${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`
}

/** The poll's answer: the sleep, and the one action to look at (a cancel first), or no `_links` when none waits. */
export function pollDocument (sleepS: number, link: { rel: 'deploymentBase' | 'cancelAction', href: string } | undefined): object {
  const config = { polling: { sleep: sleepText(sleepS) } }
  return link === undefined ? { config } : { config, _links: { [link.rel]: { href: link.href } } }
}

export interface DdiArtifact { filename: string, size: number, sha1: string, md5: string, sha256: string, href: string }

export interface DdiChunk { name: string, version: string, artifacts: DdiArtifact[] }

/** deploymentBase/<id>: one chunk (part `os`), the artifacts' hashes in lower-case hex and their sizes as integers. */
export function deploymentDocument (id: number, chunk: DdiChunk): object {
  return {
    id: String(id),
    deployment: {
      download: 'forced',
      update: 'forced',
      chunks: [{
        part: 'os',
        version: chunk.version,
        name: chunk.name,
        artifacts: chunk.artifacts.map((a) => ({
          filename: a.filename,
          hashes: { sha1: a.sha1, md5: a.md5, sha256: a.sha256 },
          size: a.size,
          _links: { 'download-http': { href: a.href } }
        }))
      }]
    }
  }
}

export function cancelDocument (id: number): object {
  return { id: String(id), cancelAction: { stopId: String(id) } }
}

/** The executions a feedback may report (hawkBit's DDI). */
export const EXECUTIONS = ['closed', 'proceeding', 'canceled', 'scheduled', 'rejected', 'resumed', 'downloaded', 'download'] as const
export type Execution = typeof EXECUTIONS[number]

export interface Feedback {
  execution: Execution
  finished: 'success' | 'failure' | 'none'
  /** The details joined, null when there are none. */
  details: string | null
}

// A device's words become a task's error message: bounded, like the other transports' ack messages.
const MAX_DETAILS = 2000

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function parse (body: Buffer): Decoded<{ value: unknown }> {
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) as unknown }
  } catch {
    return { ok: false, reason: 'payload.invalid.json' }
  }
}

function detailsOf (v: unknown): string | null | undefined {
  if (v === undefined || v === null) return null
  if (!Array.isArray(v) || !v.every((d) => typeof d === 'string')) return undefined
  const text = (v as string[]).map((d) => d.trim()).filter((d) => d !== '').join('; ')
  return text === '' ? null : text.slice(0, MAX_DETAILS)
}

/** `{status: {execution, result: {finished}, details: [..]}}` of a deployment's or a cancel's feedback. */
export function readFeedback (body: Buffer): Decoded<{ feedback: Feedback }> {
  const parsed = parse(body)
  if (!parsed.ok) return parsed
  const status = isObject(parsed.value) ? parsed.value.status : undefined
  if (!isObject(status)) return { ok: false, reason: 'payload.invalid' }
  const execution = status.execution
  if (typeof execution !== 'string' || !(EXECUTIONS as readonly string[]).includes(execution)) return { ok: false, reason: 'payload.invalid' }
  const result = status.result
  if (result !== undefined && result !== null && !isObject(result)) return { ok: false, reason: 'payload.invalid' }
  const finished = isObject(result) ? result.finished ?? 'none' : 'none'
  if (finished !== 'success' && finished !== 'failure' && finished !== 'none') return { ok: false, reason: 'payload.invalid' }
  const details = detailsOf(status.details)
  if (details === undefined) return { ok: false, reason: 'payload.invalid' }
  return { ok: true, feedback: { execution: execution as Execution, finished, details } }
}

/** The data ids of configData attributes: `ddi.<key>`. */
export const CONFIG_DATA_PREFIX = 'ddi.'
const MAX_ATTRIBUTES = 256
const MAX_KEY = 128
const MAX_VALUE = 1024
// A key becomes part of a data id: printable, no dot-free rule imposed (attributes such as `hw.revision` are common).
const KEY = /^[\x21-\x7e]+$/

/** `{mode?, data: {key: value}}`: one point per attribute, `ddi.<key>`, stamped on receipt; `remove` stores nulls. */
export function readConfigData (body: Buffer, receivedAt: number): Decoded<{ points: readonly DataPoint[] }> {
  const parsed = parse(body)
  if (!parsed.ok) return parsed
  const doc = parsed.value
  if (!isObject(doc) || !isObject(doc.data)) return { ok: false, reason: 'payload.invalid' }
  const mode = doc.mode ?? 'merge'
  if (mode !== 'merge' && mode !== 'replace' && mode !== 'remove') return { ok: false, reason: 'payload.invalid' }
  const entries = Object.entries(doc.data)
  if (entries.length > MAX_ATTRIBUTES) return { ok: false, reason: 'payload.too.large' }
  const points: DataPoint[] = []
  for (const [key, value] of entries) {
    if (key.length > MAX_KEY || !KEY.test(key)) return { ok: false, reason: 'payload.invalid' }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return { ok: false, reason: 'payload.invalid' }
    if (typeof value === 'number' && !Number.isFinite(value)) return { ok: false, reason: 'payload.invalid' }
    const text = String(value)
    if (text.length > MAX_VALUE) return { ok: false, reason: 'payload.too.large' }
    points.push({ dataId: CONFIG_DATA_PREFIX + key, ts: receivedAt, value: mode === 'remove' ? null : text })
  }
  return { ok: true, points }
}
