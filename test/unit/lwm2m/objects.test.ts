// The object models of objects 0, 1, 3, 4, 5, 6 and 9 (OMA object definitions, as the Leshan and OMA registry DDF
// files give them) and the words of their enumerated values.
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_OBJECTS, DEFAULT_REGISTRY, FIRMWARE_UPDATE_RESULTS, createObjectRegistry, parsePath, resourceAt, valueName, type LwM2mPath
} from '../../../protocols/lwm2m/index.js'

const p = (text: string): LwM2mPath => { const x = parsePath(text); if (!x.ok) throw new Error(text); return x.path }

describe('object models', () => {
  it('holds the seven objects', () => {
    expect(DEFAULT_OBJECTS.map((o) => [o.id, o.name])).toEqual([
      [0, 'LwM2M Security'], [1, 'LwM2M Server'], [3, 'Device'], [4, 'Connectivity Monitoring'], [5, 'Firmware Update'],
      [6, 'Location'], [9, 'LwM2M Software Management']
    ])
  })

  it('describes each resource: type, operations, instances, presence', () => {
    expect(resourceAt(p('/3/0/0'))).toMatchObject({ name: 'Manufacturer', type: 'String', operations: 'R', multiple: false, mandatory: false })
    expect(resourceAt(p('/3/0/4'))).toMatchObject({ name: 'Reboot', type: 'none', operations: 'E', mandatory: true })
    expect(resourceAt(p('/3/0/7/1'))).toMatchObject({ name: 'Power Source Voltage', type: 'Integer', multiple: true })
    expect(resourceAt(p('/1/0/1'))).toMatchObject({ name: 'Lifetime', type: 'Integer', operations: 'RW', units: 's' })
    expect(resourceAt(p('/1/0/11'))).toMatchObject({ type: 'Unsigned Integer' })
    expect(resourceAt(p('/0/0/3'))).toMatchObject({ name: 'Public Key or Identity', type: 'Opaque', operations: '' })
    expect(resourceAt(p('/4/0/2'))).toMatchObject({ name: 'Radio Signal Strength', units: 'dBm' })
    expect(resourceAt(p('/5/0/1'))).toMatchObject({ name: 'Package URI', type: 'String', operations: 'RW' })
    expect(resourceAt(p('/6/0/0'))).toMatchObject({ name: 'Latitude', type: 'Float' })
    expect(resourceAt(p('/6/0/5'))).toMatchObject({ name: 'Timestamp', type: 'Time' })
    expect(resourceAt(p('/9/2/10'))).toMatchObject({ name: 'Activate', type: 'none', operations: 'E' })
    expect(resourceAt(p('/9/0/17'))).toMatchObject({ type: 'Objlnk', multiple: true })
    expect(resourceAt(p('/5/0/4'))).toBeUndefined()
    expect(resourceAt(p('/3/0'))).toBeUndefined()
  })

  it('executables, and only they, have no type', () => {
    for (const o of DEFAULT_OBJECTS) {
      for (const res of o.resources) expect(res.type === 'none', `${o.id}/${res.id}`).toBe(res.operations === 'E')
    }
  })

  it('names the values of Firmware Update State and Update Result, Software Update State and Update Result', () => {
    expect(valueName(p('/5/0/3'), 2)).toBe('Downloaded')
    expect(valueName(p('/5/0/5'), 1)).toBe('Firmware updated successfully')
    expect(valueName(p('/5/0/5'), 2)).toBe('Not enough flash memory for the new firmware package')
    expect(valueName(p('/5/0/5'), 8)).toBe('Firmware update failed')
    expect(valueName(p('/5/0/5'), 9)).toBe('Unsupported protocol')
    expect(Object.keys(FIRMWARE_UPDATE_RESULTS).map(Number)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    expect(valueName(p('/9/3/7'), 3)).toBe('DELIVERED')
    expect(valueName(p('/9/3/9'), 53)).toBe('Package integrity check failure')
    expect(valueName(p('/9/3/9'), 55)).toBeUndefined()
    expect(valueName(p('/3/0/11/0'), 4n)).toBe('Low received signal strength')
    expect(valueName(p('/3/0/0'), 1)).toBeUndefined()
  })

  it('takes other objects, or other versions of ours, in a registry of its own', () => {
    const registry = createObjectRegistry([...DEFAULT_OBJECTS, { id: 3303, name: 'Temperature', version: '1.1', multiple: true, mandatory: false, resources: [] }])
    expect(registry.object(3303)?.name).toBe('Temperature')
    expect(DEFAULT_REGISTRY.object(3303)).toBeUndefined()
  })
})
