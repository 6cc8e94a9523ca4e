// The server's observations of a simulated LwM2M client (OMA-TS-LightweightM2M-Core 1.1 §6.4.1 Observe, §5.1.2
// Write-Attributes pmin/pmax): a value that changed under an observed path is notified, no sooner than pmin seconds
// after the last notification of that observation, and at the latest pmax seconds after it even without a change. A
// notification whose payload is the one sent last is not sent again (nothing changed for that observer). While the
// device sleeps (queue mode) notifications wait for it to wake, as §6.5 has them stored.
import type { LwM2mPath } from '../../protocols/lwm2m/index.js'

export interface Rendered { code: number, contentFormat: number, payload: Buffer }

export interface ObserversDeps {
  /** The observed path's representation now in that format; undefined when the path is gone. */
  render (path: LwM2mPath, format: number): Rendered | undefined
  /** Sends a CON notification; resolves with its outcome (acked, reset, timeout…). */
  send (peer: string, token: Buffer, r: Rendered): Promise<string>
  /** pmin and pmax (seconds; 0: none) for a path. */
  periods (path: LwM2mPath): { pmin: number, pmax: number }
  /** False while asleep (queue mode). */
  awake (): boolean
}

interface Observation {
  peer: string
  token: Buffer
  path: LwM2mPath
  format: number
  lastSentAt: number
  lastPayload: Buffer | undefined
  pending: boolean
  minTimer: NodeJS.Timeout | undefined
  maxTimer: NodeJS.Timeout | undefined
}

const ids = (p: LwM2mPath): number[] => [p.objectId, p.instanceId, p.resourceId, p.resourceInstanceId].filter((x): x is number => x !== undefined)
/** One path is under the other (either way): a change at one concerns an observation of the other. */
export function overlaps (a: LwM2mPath, b: LwM2mPath): boolean {
  const x = ids(a)
  const y = ids(b)
  const n = Math.min(x.length, y.length)
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return false
  return true
}

export class Lwm2mObservers {
  private readonly all = new Map<string, Observation>()

  constructor (private readonly d: ObserversDeps) {}

  get size (): number { return this.all.size }

  paths (): LwM2mPath[] { return [...this.all.values()].map((o) => o.path) }

  /** An observation accepted with its first answer (that payload counts as sent). */
  add (peer: string, token: Buffer, path: LwM2mPath, format: number, first: Buffer): void {
    this.remove(peer, token)
    const o: Observation = { peer, token, path, format, lastSentAt: Date.now(), lastPayload: first, pending: false, minTimer: undefined, maxTimer: undefined }
    this.all.set(this.key(peer, token), o)
    this.armMax(o)
  }

  remove (peer: string, token: Buffer): void {
    const o = this.all.get(this.key(peer, token))
    if (o === undefined) return
    clearTimeout(o.minTimer)
    clearTimeout(o.maxTimer)
    this.all.delete(this.key(peer, token))
  }

  /** Values changed at these paths: resolves once the notifications due now are answered (pmin-deferred ones do not hold it). */
  async changed (paths: readonly LwM2mPath[]): Promise<void> {
    const due = [...this.all.values()].filter((o) => paths.some((p) => overlaps(p, o.path)))
    await Promise.all(due.map(async (o) => { await this.consider(o, false) }))
  }

  /** Back awake: what waited is sent. */
  async flush (): Promise<void> {
    await Promise.all([...this.all.values()].filter((o) => o.pending).map(async (o) => { await this.consider(o, false) }))
  }

  clear (): void {
    for (const o of this.all.values()) { clearTimeout(o.minTimer); clearTimeout(o.maxTimer) }
    this.all.clear()
  }

  private key (peer: string, token: Buffer): string { return `${token.toString('hex')} ${peer}` }

  private async consider (o: Observation, forced: boolean): Promise<void> {
    if (!this.d.awake()) { o.pending = true; return }
    const { pmin } = this.d.periods(o.path)
    const wait = o.lastSentAt + pmin * 1000 - Date.now()
    if (wait > 0 && !forced) {
      o.pending = true
      o.minTimer ??= setTimeout(() => { o.minTimer = undefined; this.consider(o, true).catch(() => {}) }, wait).unref()
      return
    }
    o.pending = false
    const r = this.d.render(o.path, o.format)
    if (r === undefined || (!forced && o.lastPayload?.equals(r.payload) === true)) return
    o.lastSentAt = Date.now()
    o.lastPayload = r.payload
    this.armMax(o)
    const outcome = await this.d.send(o.peer, o.token, r)
    if (outcome !== 'acked' && outcome !== 'sent') this.remove(o.peer, o.token)
  }

  private armMax (o: Observation): void {
    clearTimeout(o.maxTimer)
    const { pmax } = this.d.periods(o.path)
    o.maxTimer = pmax > 0 ? setTimeout(() => { this.consider(o, true).catch(() => {}) }, pmax * 1000).unref() : undefined
  }
}
