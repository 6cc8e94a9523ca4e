// A simulated LwM2M client's life (OMA-TS-LightweightM2M-Core 1.1 §6.2, §6.5): open the link, register, update
// before the lifetime ends, sleep between updates in queue mode, reboot (Execute 3/0/4, or after a firmware update:
// the session dropped without a de-register, as a device that restarts drops it, then a new registration after
// `rebootMs`), and de-register on stop. The objects are lwm2m-objects.ts, the requests lwm2m-requests.ts, the
// observations lwm2m-observers.ts, the link lwm2m-link.ts.
import { EventEmitter } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { CoapCode, OptionNumber, encodeUint } from '../../protocols/coap/index.js'
import type { LwM2mPath } from '../../protocols/lwm2m/index.js'
import type { Lwm2mDeviceState } from './lwm2m-device-objects.js'
import type { FirmwareUpdate } from './lwm2m-firmware.js'
import { openLink, type LinkTarget, type Lwm2mLink } from './lwm2m-link.js'
import { clientObjects, type ClientObjects } from './lwm2m-objects.js'
import { Lwm2mObservers } from './lwm2m-observers.js'
import { parseLwm2mUrl, pskKey, type Lwm2mDeviceOptions } from './lwm2m-options.js'
import { deregister, register, updateRegistration } from './lwm2m-registration.js'
import { lwm2mHandler, periodsOf, render, type Lwm2mVersion, type RequestsDeps } from './lwm2m-requests.js'
import type { SoftwareManagement } from './lwm2m-software.js'
import type { Lwm2mTree } from './lwm2m-tree.js'
import { wakeWindow, type WakeWindow } from './lwm2m-wake.js'

export interface Lwm2mClient {
  /** `registered` (location), `updated`, `deregistered`, `rebooting`, `asleep`, `awake`, `error` (Error). */
  readonly events: EventEmitter
  readonly state: Lwm2mDeviceState
  readonly tree: Lwm2mTree
  readonly firmware: FirmwareUpdate
  readonly software: SoftwareManagement
  readonly observers: Lwm2mObservers
  /** `/rd/<id>` while registered. */
  readonly location: string | undefined
  readonly awake: boolean
  readonly registrations: number
  readonly updates: number
  start (): Promise<void>
  /** A registration update now (in queue mode: the device wakes for it). */
  update (): Promise<void>
  /** Values changed at these paths: notifies their observers; resolves once those notifications are answered. */
  changed (paths: readonly LwM2mPath[]): Promise<void>
  /** Drops the session without a de-register, off for rebootMs, then registers again (`restart`: counted as one, default). */
  reboot (restart?: boolean): Promise<void>
  /** De-registers and closes. */
  stop (): Promise<void>
}

function linkTarget (o: Lwm2mDeviceOptions): LinkTarget {
  const t = parseLwm2mUrl(o.url)
  if (t.secure !== (o.psk !== undefined)) throw new Error(t.secure ? 'a coaps:// URL needs a PSK' : 'a PSK needs a coaps:// URL')
  const psk = o.psk === undefined ? undefined : { identity: o.psk.identity ?? o.endpointName, key: pskKey(o.psk.keyHex) }
  return { host: t.host, port: t.port, ...(psk === undefined ? {} : { psk }), ...(o.ackTimeoutMs === undefined ? {} : { ackTimeoutMs: o.ackTimeoutMs }) }
}

/** The observers of a client, notifying over whatever link it has now. */
function observersOf (objects: ClientObjects, deps: () => RequestsDeps, link: () => Lwm2mLink | undefined): Lwm2mObservers {
  const { state } = objects
  return new Lwm2mObservers({
    render: (path, format) => { const r = render(deps(), path, format); return r.code === CoapCode.Content ? r : undefined },
    send: async (peer, token, r) => {
      const l = link()
      if (l === undefined) return 'ended'
      return await l.endpoint.notify(peer, token, { code: r.code, options: [{ number: OptionNumber.ContentFormat, value: encodeUint(r.contentFormat) }], payload: r.payload }, { confirmable: true })
    },
    periods: (path) => periodsOf(deps(), path, { pmin: state.defaultPmin, pmax: state.defaultPmax }),
    awake: () => link()?.awake === true
  })
}

class Client implements Lwm2mClient {
  readonly events = new EventEmitter()
  readonly state: Lwm2mDeviceState
  readonly tree: Lwm2mTree
  readonly firmware: FirmwareUpdate
  readonly software: SoftwareManagement
  readonly observers: Lwm2mObservers
  registrations = 0
  updates = 0
  private link: Lwm2mLink | undefined
  private loc: string | undefined
  private stopped = false
  private updateTimer: NodeJS.Timeout | undefined
  private pending: { links?: boolean, lifetime?: boolean } = {}
  private rebooting: Promise<void> | undefined
  private readonly version: Lwm2mVersion
  private readonly queue: boolean
  private readonly target: LinkTarget
  private readonly attributes: RequestsDeps['attributes'] = new Map()
  private readonly handle: ReturnType<typeof lwm2mHandler>
  private readonly wake: WakeWindow

  constructor (private readonly o: Lwm2mDeviceOptions) {
    this.version = o.version ?? '1.1'
    this.queue = o.queue ?? false
    this.target = linkTarget(o)
    const objects = clientObjects(o, {
      changed: (paths) => { this.changed(paths).catch(this.fail) },
      reboot: () => { this.later(async () => { await this.reboot() }) },
      update: (what) => { Object.assign(this.pending, what); this.later(async () => { await this.update() }) },
      factoryReset: () => { this.attributes.clear() }
    })
    this.state = objects.state
    this.tree = objects.tree
    this.firmware = objects.firmware
    this.software = objects.software
    const deps = (): RequestsDeps => ({ tree: this.tree, observers: this.observers, version: this.version, attributes: this.attributes })
    this.observers = observersOf(objects, deps, () => this.link)
    this.handle = lwm2mHandler(deps())
    this.wake = wakeWindow(o.queueAwakeMs ?? 5000, () => this.queue ? this.link : undefined, {
      onWake: () => { this.events.emit('awake'); this.observers.flush().catch(this.fail) },
      onSleep: () => { this.events.emit('asleep') }
    })
  }

  get location (): string | undefined { return this.loc }
  get awake (): boolean { return this.link?.awake === true }

  async start (): Promise<void> {
    this.stopped = false
    const l = await openLink(this.target, {
      handler: (req, peer) => { this.wake.touch(); return this.handle(req, peer) },
      onObserverGone: (ob) => { this.observers.remove(ob.peer, ob.token) },
      // The DTLS session ended under it (the server closed it, or restarted): a new handshake and registration, no restart.
      onClosed: () => { if (this.link === l && !this.stopped) this.later(async () => { await this.reboot(false) }) }
    })
    this.link = l
    await this.register(l)
  }

  async update (): Promise<void> {
    const l = this.link
    if (l === undefined || this.loc === undefined || this.stopped) return
    this.wake.touch()
    // The next one is planned before this one goes: a lost update (the server away) does not end the updates.
    this.scheduleUpdate()
    const p = this.pending
    this.pending = {}
    const code = await updateRegistration(l.endpoint, this.loc, {
      version: this.version,
      ...(p.lifetime === true ? { lifetime: this.state.lifetime, binding: this.state.binding } : {}),
      ...(p.links === true ? { links: this.tree.registrationLinks(this.version === '1.1') } : {})
    })
    // 4.04: the server forgot the registration (expired, or the server restarted): register again (§6.2.2).
    if (code === CoapCode.NotFound) return await this.register(l)
    this.updates++
    this.events.emit('updated')
  }

  async changed (paths: readonly LwM2mPath[]): Promise<void> {
    if (this.link !== undefined) await this.observers.changed(paths)
  }

  async reboot (restart = true): Promise<void> {
    if (this.rebooting !== undefined) return await this.rebooting
    if (this.stopped) return
    this.rebooting = (async () => {
      this.events.emit('rebooting')
      await this.drop()
      await sleep(this.o.rebootMs ?? 1000)
      if (restart) this.o.onReboot?.()
      if (!this.stopped) await this.start()
    })().finally(() => { this.rebooting = undefined })
    await this.rebooting
  }

  async stop (): Promise<void> {
    this.stopped = true
    await this.rebooting?.catch(() => {})
    const l = this.link
    if (l !== undefined && this.loc !== undefined) {
      l.awake = true // it wakes to say goodbye
      await deregister(l.endpoint, this.loc)
      this.events.emit('deregistered')
    }
    await this.drop()
  }

  private readonly fail = (err: unknown): void => { if (this.events.listenerCount('error') > 0) this.events.emit('error', err) }

  /** What the objects ask for happens after the request that asked is answered. */
  private later (fn: () => Promise<void>): void { setTimeout(() => { fn().catch(this.fail) }, 10) }

  private async register (l: Lwm2mLink): Promise<void> {
    this.loc = await register(l.endpoint, { endpointName: this.o.endpointName, lifetime: this.state.lifetime, version: this.version, queue: this.queue, links: this.tree.registrationLinks(this.version === '1.1') })
    this.registrations++
    this.pending = {}
    this.wake.touch()
    this.scheduleUpdate()
    this.events.emit('registered', this.loc)
  }

  private scheduleUpdate (): void {
    clearTimeout(this.updateTimer)
    // Three quarters of the lifetime, so the update arrives before the server lets the registration expire.
    this.updateTimer = setTimeout(() => { this.update().catch(this.fail) }, Math.max(500, this.state.lifetime * 750)).unref()
  }

  private async drop (): Promise<void> {
    clearTimeout(this.updateTimer)
    this.wake.clear()
    this.observers.clear()
    const l = this.link
    this.link = undefined
    this.loc = undefined
    await l?.close()
  }
}

/** A client, not started: `await client.start()` opens the link and registers. @throws Error for a URL and PSK that do not match */
export function createLwm2mClient (o: Lwm2mDeviceOptions): Lwm2mClient {
  return new Client(o)
}
