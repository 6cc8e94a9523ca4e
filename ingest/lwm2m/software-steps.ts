// What an LWM2M_SW task does next, from what the device's Object 9 says (OMA object 9, LwM2M Software Management;
// docs/protocols/lwm2m.md#installs). Pure: the requests are software-install.ts's and software-actions.ts's.
//   download: the Package URI written. Update State 3 DELIVERED → Execute Install; 4 INSTALLED → SUCCESS. Back to 0
//             INITIAL with an Update Result of 50 or more → the download failed, by that result; INITIAL with none →
//             the device is not downloading (it restarted and dropped it): the URI is written again.
//   install:  Install executed. INSTALLED → SUCCESS; an Update Result of 50 or more → FAILURE by its name.
// The package of an uninstall, start or stop is the instance whose PkgName is the application's type or name, its
// PkgVersion the revision when several have that name.
import { SOFTWARE_UPDATE_RESULTS, type LwM2mEntry } from '../../protocols/lwm2m/index.js'
import { OK, failed } from './device-requests.js'
import { intAt, type Next } from './install-step.js'

export type SoftwareStep = 'download' | 'install'

/** 9/x/7 Update State and 9/x/9 Update Result as read. */
export interface SoftwareReading { state: number, result: number }

export const SW_STATE = { initial: 0, downloadStarted: 1, downloaded: 2, delivered: 3, installed: 4 } as const
/** Update Results from 50 on are failures (2 installed, 3 delivered; 4–49 reserved). */
const FIRST_FAILURE = 50

export function softwareFailure (result: number): string {
  return `${SOFTWARE_UPDATE_RESULTS[result] ?? 'Unknown Update Result'} (Update Result ${result})`
}

export function softwareNext (step: SoftwareStep, s: SoftwareReading): Next {
  if (s.state === SW_STATE.installed) return { do: 'end', outcome: OK }
  if (s.result >= FIRST_FAILURE && (step === 'install' || s.state === SW_STATE.initial)) return { do: 'end', outcome: failed(softwareFailure(s.result)) }
  if (step === 'download') {
    if (s.state === SW_STATE.delivered) return { do: 'execute' }
    return s.state === SW_STATE.initial ? { do: 'write' } : { do: 'wait' }
  }
  if (s.state === SW_STATE.initial) return { do: 'end', outcome: failed('back to INITIAL with no Update Result after Install: the device dropped the package') }
  return { do: 'wait' }
}

/** An instance of Object 9 as read: its package (PkgName 9/x/0, PkgVersion 9/x/1) and Update State. */
export interface PackageSlot { instanceId: number, name: string, version: string, state: number | undefined }

export function slotsOf (values: readonly LwM2mEntry[]): PackageSlot[] {
  const ids = [...new Set(values.map((v) => v.path.instanceId).filter((i): i is number => i !== undefined))].sort((a, b) => a - b)
  const text = (id: number, resourceId: number): string => {
    const v = values.find((e) => e.path.instanceId === id && e.path.resourceId === resourceId)?.value
    return typeof v === 'string' ? v : ''
  }
  return ids.map((id) => ({ instanceId: id, name: text(id, 0), version: text(id, 1), state: intAt(values, id, 7) }))
}

/** An instance the device announced to take a new package: INITIAL, holding none. */
export const emptySlot = (slots: readonly PackageSlot[]): number | undefined =>
  slots.find((s) => s.state === SW_STATE.initial && s.name === '')?.instanceId

/** The instance holding the application: PkgName its type or name (in any case), PkgVersion its revision when several do. */
export function slotOf (slots: readonly PackageSlot[], app: { type: string, name: string, revision: string }): number | undefined {
  const names = new Set([app.type.toLowerCase(), app.name.toLowerCase()])
  const named = slots.filter((s) => names.has(s.name.toLowerCase()))
  return (named.find((s) => s.version === app.revision) ?? (named.length === 1 ? named[0] : undefined))?.instanceId
}
