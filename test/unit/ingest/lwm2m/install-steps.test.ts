// What an LwM2M install does next from what the device's object says (ingest/lwm2m/firmware-steps.ts and
// software-steps.ts; docs/protocols/lwm2m.md#installs), and which Object 9 instance a package goes to or is found in.
import { describe, expect, it } from 'vitest'
import { firmwareNext } from '../../../../ingest/lwm2m/firmware-steps.js'
import { emptySlot, slotOf, slotsOf, softwareNext } from '../../../../ingest/lwm2m/software-steps.js'
import type { LwM2mEntry } from '../../../../protocols/lwm2m/index.js'

const fail = (message: string): unknown => ({ do: 'end', outcome: { status: 'ERROR', message } })
const success = { do: 'end', outcome: { status: 'OK' } }

describe('Object 5 (LWM2M_FW)', () => {
  it('download: Downloaded executes Update, Downloading waits, Idle with a failure ends it by its name, Idle without writes again', () => {
    expect(firmwareNext('download', { state: 2, result: 0 })).toEqual({ do: 'execute' })
    expect(firmwareNext('download', { state: 1, result: 0 })).toEqual({ do: 'wait' })
    expect(firmwareNext('download', { state: 0, result: 5 })).toEqual(fail('Integrity check failure for new downloaded package (Update Result 5)'))
    expect(firmwareNext('download', { state: 0, result: 9 })).toEqual(fail('Unsupported protocol (Update Result 9)'))
    expect(firmwareNext('download', { state: 0, result: 0 })).toEqual({ do: 'write' })
    expect(firmwareNext('download', { state: 0, result: 1 })).toEqual({ do: 'write' }) // an earlier update's success
  })

  it('update: Update Result 1 succeeds, 2 and more fail by name whatever the State; Downloaded again executes again', () => {
    expect(firmwareNext('update', { state: 0, result: 1 })).toEqual(success)
    expect(firmwareNext('update', { state: 0, result: 8 })).toEqual(fail('Firmware update failed (Update Result 8)'))
    expect(firmwareNext('update', { state: 3, result: 2 })).toEqual(fail('Not enough flash memory for the new firmware package (Update Result 2)'))
    expect(firmwareNext('update', { state: 0, result: 42 })).toEqual(fail('Unknown Update Result (Update Result 42)'))
    expect(firmwareNext('update', { state: 3, result: 0 })).toEqual({ do: 'wait' })
    expect(firmwareNext('update', { state: 2, result: 0 })).toEqual({ do: 'execute' })
    expect(firmwareNext('update', { state: 0, result: 0 })).toMatchObject({ do: 'end', outcome: { status: 'ERROR' } })
  })
})

describe('Object 9 (LWM2M_SW)', () => {
  it('download: DELIVERED executes Install, INSTALLED succeeds, INITIAL with a failure ends it, without one writes again', () => {
    expect(softwareNext('download', { state: 3, result: 3 })).toEqual({ do: 'execute' })
    expect(softwareNext('download', { state: 1, result: 1 })).toEqual({ do: 'wait' })
    expect(softwareNext('download', { state: 2, result: 1 })).toEqual({ do: 'wait' })
    expect(softwareNext('download', { state: 4, result: 2 })).toEqual(success)
    expect(softwareNext('download', { state: 0, result: 53 })).toEqual(fail('Package integrity check failure (Update Result 53)'))
    expect(softwareNext('download', { state: 0, result: 0 })).toEqual({ do: 'write' })
  })

  it('install: INSTALLED succeeds, a failing Update Result ends it by its name, DELIVERED waits', () => {
    expect(softwareNext('install', { state: 4, result: 2 })).toEqual(success)
    expect(softwareNext('install', { state: 3, result: 58 })).toEqual(fail('Software installation failure (Update Result 58)'))
    expect(softwareNext('install', { state: 3, result: 3 })).toEqual({ do: 'wait' })
    expect(softwareNext('install', { state: 0, result: 0 })).toMatchObject({ do: 'end', outcome: { status: 'ERROR' } })
  })

  const entry = (instanceId: number, resourceId: number, value: string | number): LwM2mEntry =>
    ({ path: { objectId: 9, instanceId, resourceId }, value, type: typeof value === 'string' ? 'String' : 'Integer' })
  const slots = slotsOf([
    entry(0, 0, 'agent'), entry(0, 1, '1.0'), entry(0, 7, 4),
    entry(2, 0, ''), entry(2, 1, ''), entry(2, 7, 0),
    entry(3, 0, 'Meter'), entry(3, 1, '2.0'), entry(3, 7, 4),
    entry(5, 0, 'meter'), entry(5, 1, '3.0'), entry(5, 7, 4)
  ])

  it('reads the instances\' packages; an empty INITIAL one takes a new package', () => {
    expect(slots.map((x) => x.instanceId)).toEqual([0, 2, 3, 5])
    expect(slots[0]).toEqual({ instanceId: 0, name: 'agent', version: '1.0', state: 4 })
    expect(emptySlot(slots)).toBe(2)
    expect(emptySlot(slots.filter((x) => x.instanceId !== 2))).toBeUndefined()
  })

  it('finds the application by PkgName (its type or name, in any case), by PkgVersion among several', () => {
    expect(slotOf(slots, { type: 'com.example.agent', name: 'agent', revision: '9' })).toBe(0)
    expect(slotOf(slots, { type: 'meter', name: 'Meter', revision: '3.0' })).toBe(5)
    expect(slotOf(slots, { type: 'meter', name: 'Meter', revision: '2.0' })).toBe(3)
    expect(slotOf(slots, { type: 'meter', name: 'Meter', revision: '4.0' })).toBeUndefined() // two, neither that revision
    expect(slotOf(slots, { type: 'other', name: 'Other', revision: '1.0' })).toBeUndefined()
  })
})
