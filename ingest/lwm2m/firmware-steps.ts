// What an LWM2M_FW install does next, from where it stands and what the device's Object 5 says (OMA object 5,
// Firmware Update, its state machine; docs/protocols/lwm2m.md#installs). Pure: the requests are firmware-install.ts's.
//   download: the Package URI written. State 2 Downloaded → Execute Update. State 0 Idle with an Update Result of 2 or
//             more → the download failed, by that result. Idle with no result (0, or 1 left from an earlier update)
//             → the device is not downloading (it restarted and dropped it): the URI is written again.
//   update:   Update executed. Update Result 1 → SUCCESS; 2 or more → FAILURE by its name, whatever the State.
//             State 2 again → Update executed again (the device restarted before it took it). Idle with no result
//             after an Update is a device that lost the update: FAILURE.
import { FIRMWARE_STATES, FIRMWARE_UPDATE_RESULTS } from '../../protocols/lwm2m/index.js'
import { OK, failed } from './device-requests.js'
import type { Next } from './install-step.js'

export type FirmwareStep = 'download' | 'update'

/** 5/0/3 State and 5/0/5 Update Result as read. */
export interface FirmwareReading { state: number, result: number }

export const FW_STATE = { idle: 0, downloading: 1, downloaded: 2, updating: 3 } as const
const SUCCESS = 1

/** `Firmware update failed (Update Result 8)`: the result's name from the object's definition. */
export function firmwareFailure (result: number): string {
  return `${FIRMWARE_UPDATE_RESULTS[result] ?? 'Unknown Update Result'} (Update Result ${result})`
}

const stateName = (state: number): string => `${FIRMWARE_STATES[state] ?? 'unknown State'} (State ${state})`

export function firmwareNext (step: FirmwareStep, s: FirmwareReading): Next {
  if (step === 'download') {
    if (s.state === FW_STATE.downloaded) return { do: 'execute' }
    if (s.state !== FW_STATE.idle) return { do: 'wait' }
    return s.result > SUCCESS ? { do: 'end', outcome: failed(firmwareFailure(s.result)) } : { do: 'write' }
  }
  if (s.result === SUCCESS) return { do: 'end', outcome: OK }
  if (s.result > SUCCESS) return { do: 'end', outcome: failed(firmwareFailure(s.result)) }
  if (s.state === FW_STATE.downloaded) return { do: 'execute' }
  if (s.state === FW_STATE.idle) return { do: 'end', outcome: failed(`${stateName(s.state)} with no Update Result after Update: the device dropped the update`) }
  return { do: 'wait' }
}
