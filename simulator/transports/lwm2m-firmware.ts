// Object 5, Firmware Update, pull only (OMA object 5; docs/protocols/lwm2m.md "install: LWM2M_FW"): the
// server writes the Package URI, the device downloads it (State 1 Downloading → 2 Downloaded, or back to 0 Idle with
// the Update Result of why), the server executes Update (State 3 Updating) and the device ends on Idle with Update
// Result 1 and the package's version as its firmware version (3/0/3, 5/0/7), or Update Result 8 "Firmware update
// failed" when it is of the failing share (`--update-failure-rate`). No sockets: the download comes as a function,
// so the state machine is tested on its own (test/unit/simulator/lwm2m-objects.test.ts).
import { FIRMWARE_STATES } from '../../protocols/lwm2m/index.js'
import type { InstanceResources, ObjectInstances, Outcome, ResourceValue } from './lwm2m-tree.js'

/** A package fetched and checked, or why not (each failure has its Update Result). */
export type FetchedPackage =
  | { ok: true, name: string, version: string }
  | { ok: false, failure: 'connection' | 'integrity' | 'uri' | 'protocol' | 'stopped', message: string }

export type PackageFetch = (uri: string) => Promise<FetchedPackage>

/** 5/0/3 State, by name. */
export const FW_STATE = { idle: 0, downloading: 1, downloaded: 2, updating: 3 } as const
/** 5/0/5 Update Result values the device sets. */
export const FW_RESULT = { initial: 0, success: 1, connectionLost: 4, integrity: 5, invalidUri: 7, failed: 8, unsupportedProtocol: 9 } as const

const FAILURE_RESULT: Record<Exclude<FetchedPackage, { ok: true }>['failure'], number> = {
  connection: FW_RESULT.connectionLost,
  integrity: FW_RESULT.integrity,
  uri: FW_RESULT.invalidUri,
  protocol: FW_RESULT.unsupportedProtocol,
  stopped: FW_RESULT.connectionLost
}

export interface FirmwareOptions {
  fetchPackage: PackageFetch
  /** The firmware version the device runs at first. */
  version: string
  /** Fails every update once downloaded (the failing share of `--update-failure-rate`). */
  failsInstalls?: boolean
  /** How long Updating lasts (ms, default 0). */
  updateMs?: number
  /** One of its resources changed (for the observers). */
  onChange?: () => void
  /** The update succeeded: the device restarts on the new firmware (re-registers). */
  onUpdated?: (version: string) => void
}

export interface FirmwareUpdate extends ObjectInstances {
  readonly state: number
  readonly result: number
  /** The firmware version running (3/0/3). */
  readonly firmwareVersion: string
  /** Resolves when no download or update is under way. */
  settled (): Promise<void>
}

/** Only HTTP(S) downloads are simulated (5/0/8 says so); anything else is Unsupported protocol. */
const pullable = (uri: string): boolean => /^https?:\/\//i.test(uri)

function firmwareValues (uri: string, state: number, result: number, installed: { name: string, version: string } | undefined): ReadonlyMap<number, ResourceValue> {
  return new Map<number, ResourceValue>([
    [1, uri], [3, state], [5, result], [6, installed?.name ?? ''], [7, installed?.version ?? ''],
    [8, new Map([[0, 2], [1, 3]])], // HTTP 1.1, HTTPS 1.1
    [9, 0] // pull only
  ])
}

export function createFirmwareUpdate (o: FirmwareOptions): FirmwareUpdate {
  let state: number = FW_STATE.idle
  let result: number = FW_RESULT.initial
  let uri = ''
  let version = o.version
  let pkg: { name: string, version: string } | undefined
  let installed: { name: string, version: string } | undefined
  let work: Promise<void> = Promise.resolve()
  // A newer write of the URI makes the download in flight stale: its outcome is dropped.
  let generation = 0
  const set = (s: number, r: number): void => { state = s; result = r; o.onChange?.() }

  async function pull (target: string, gen: number): Promise<void> {
    const got = await o.fetchPackage(target)
    if (gen !== generation) return
    if (got.ok) { pkg = { name: got.name, version: got.version }; set(FW_STATE.downloaded, FW_RESULT.initial); return }
    if (got.failure !== 'stopped') set(FW_STATE.idle, FAILURE_RESULT[got.failure])
  }

  function writeUri (value: string): Outcome {
    if (state === FW_STATE.downloading || state === FW_STATE.updating) return 'bad.request'
    const gen = ++generation
    uri = value
    pkg = undefined
    // An empty URI cancels: back to Idle, result reset (object 5, resource 1).
    if (value === '') { set(FW_STATE.idle, FW_RESULT.initial); return 'ok' }
    if (!pullable(value)) { set(FW_STATE.idle, FW_RESULT.unsupportedProtocol); return 'ok' }
    set(FW_STATE.downloading, FW_RESULT.initial)
    work = pull(value, gen)
    return 'ok'
  }

  async function apply (gen: number): Promise<void> {
    // Always a turn of the event loop at least: the Execute is answered, and State 3 seen, before the outcome.
    await new Promise((resolve) => setTimeout(resolve, o.updateMs ?? 0))
    if (gen !== generation || pkg === undefined) return
    if (o.failsInstalls === true) { set(FW_STATE.idle, FW_RESULT.failed); return }
    installed = pkg
    version = pkg.version
    pkg = undefined
    set(FW_STATE.idle, FW_RESULT.success)
    o.onUpdated?.(version)
  }

  function update (): Outcome {
    if (state !== FW_STATE.downloaded) return 'not.allowed'
    set(FW_STATE.updating, result)
    work = apply(generation)
    return 'ok'
  }

  const instance: InstanceResources = {
    values: () => firmwareValues(uri, state, result, installed),
    write (resourceId, value) {
      if (resourceId !== 1) return 'not.allowed' // 5/0/0 Package: pull only, nothing is pushed
      return typeof value === 'string' ? writeUri(value) : 'bad.request'
    },
    execute: (resourceId) => resourceId === 2 ? update() : 'not.allowed',
    executables: [2]
  }

  return {
    id: 5,
    version: '1.0',
    instances: () => new Map([[0, instance]]),
    get state () { return state },
    get result () { return result },
    get firmwareVersion () { return version },
    async settled () {
      let current: Promise<void>
      do { current = work; await current } while (current !== work)
    }
  }
}

/** The name of a State value (for logs and tests). */
export const firmwareStateName = (state: number): string => FIRMWARE_STATES[state] ?? String(state)
