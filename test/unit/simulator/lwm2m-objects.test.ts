// The object model of the simulated LwM2M device without sockets: Object 5's firmware update states, Object 9's
// software install states, the tree's read/write/execute outcomes, the model's points applied to the objects, the
// registration query, the package names, and the command line's LwM2M flags.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseSimulateArgs, UsageError, type SimulateDefaults } from '../../../simulator/cli.js'
import { installedApplications } from '../../../simulator/devices/installed.js'
import { applyPoints } from '../../../simulator/transports/lwm2m.js'
import { deviceObjects, initialDeviceState } from '../../../simulator/transports/lwm2m-device-objects.js'
import { createFirmwareUpdate, FW_RESULT, FW_STATE, type FetchedPackage, type PackageFetch } from '../../../simulator/transports/lwm2m-firmware.js'
import { packageIdentity } from '../../../simulator/transports/lwm2m-package.js'
import { registerQuery, registrationPayload } from '../../../simulator/transports/lwm2m-registration.js'
import { createSoftwareManagement, SW_RESULT, SW_STATE } from '../../../simulator/transports/lwm2m-software.js'
import { Lwm2mTree } from '../../../simulator/transports/lwm2m-tree.js'

/** A download the test finishes by hand: each fetch waits for `finish(answer)`. */
function manualFetch (): { fetch: PackageFetch, finish: (answer: FetchedPackage) => void, uris: string[] } {
  const waiting: Array<(a: FetchedPackage) => void> = []
  const uris: string[] = []
  return {
    uris,
    fetch: async (uri) => { uris.push(uri); return await new Promise((resolve) => { waiting.push(resolve) }) },
    finish: (answer) => { waiting.shift()?.(answer) }
  }
}

const OK: FetchedPackage = { ok: true, name: 'fw', version: '2.0' }
const URI = 'https://fleet.example/device/packages/t'

describe('Object 5, firmware update', () => {
  const fw = (o: { failsInstalls?: boolean } = {}): { f: ReturnType<typeof createFirmwareUpdate>, m: ReturnType<typeof manualFetch>, updated: string[], changes: () => number } => {
    const m = manualFetch()
    const updated: string[] = []
    let changes = 0
    const f = createFirmwareUpdate({ fetchPackage: m.fetch, version: '1.0', onUpdated: (v) => { updated.push(v) }, onChange: () => { changes++ }, ...o })
    return { f, m, updated, changes: () => changes }
  }
  const inst = (f: ReturnType<typeof createFirmwareUpdate>) => f.instances().get(0)!

  it('goes Idle → Downloading → Downloaded → Updating → Idle with result 1 and the new version', async () => {
    const { f, m, updated, changes } = fw()
    expect([f.state, f.result, f.firmwareVersion]).toEqual([FW_STATE.idle, FW_RESULT.initial, '1.0'])
    expect(inst(f).write?.(1, URI)).toBe('ok')
    expect(f.state).toBe(FW_STATE.downloading)
    expect(inst(f).execute?.(2, '')).toBe('not.allowed') // not downloaded yet
    m.finish(OK)
    await f.settled()
    expect(f.state).toBe(FW_STATE.downloaded)
    expect(inst(f).values().get(1)).toBe(URI)
    expect(inst(f).execute?.(2, '')).toBe('ok')
    expect(f.state).toBe(FW_STATE.updating)
    await f.settled()
    expect([f.state, f.result, f.firmwareVersion, updated]).toEqual([FW_STATE.idle, FW_RESULT.success, '2.0', ['2.0']])
    expect(inst(f).values().get(7)).toBe('2.0')
    expect(changes()).toBe(4)
  })

  it('fails the update with result 8 on the failing share, keeping its version', async () => {
    const { f, m, updated } = fw({ failsInstalls: true })
    inst(f).write?.(1, URI)
    m.finish(OK)
    await f.settled()
    inst(f).execute?.(2, '')
    await f.settled()
    expect([f.state, f.result, f.firmwareVersion, updated]).toEqual([FW_STATE.idle, FW_RESULT.failed, '1.0', []])
  })

  it('maps download failures to their results, refuses a URI while downloading, and cancels with an empty one', async () => {
    const { f, m } = fw()
    for (const [failure, result] of [['connection', 4], ['integrity', 5], ['uri', 7]] as const) {
      inst(f).write?.(1, URI)
      expect(inst(f).write?.(1, URI)).toBe('bad.request')
      m.finish({ ok: false, failure, message: 'x' })
      await f.settled()
      expect([f.state, f.result]).toEqual([FW_STATE.idle, result])
    }
    inst(f).write?.(1, 'coap://elsewhere/fw')
    expect([f.state, f.result, m.uris.length]).toEqual([FW_STATE.idle, FW_RESULT.unsupportedProtocol, 3])
    inst(f).write?.(1, URI)
    m.finish(OK)
    await f.settled()
    expect(inst(f).write?.(1, '')).toBe('ok')
    expect([f.state, f.result]).toEqual([FW_STATE.idle, FW_RESULT.initial])
    expect(inst(f).execute?.(2, '')).toBe('not.allowed')
    expect(inst(f).write?.(0, Buffer.from('pushed'))).toBe('not.allowed') // pull only
  })

  it('only ever shows a state of 0–3 and a result it defines, whatever the server does in any order', async () => {
    const step = fc.constantFrom('uri', 'empty', 'update', 'ok', 'fail')
    await fc.assert(fc.asyncProperty(fc.array(step, { maxLength: 30 }), async (steps) => {
      const { f, m } = fw()
      for (const s of steps) {
        if (s === 'uri') inst(f).write?.(1, URI)
        else if (s === 'empty') inst(f).write?.(1, '')
        else if (s === 'update') inst(f).execute?.(2, '')
        else m.finish(s === 'ok' ? OK : { ok: false, failure: 'connection', message: 'x' })
        await Promise.resolve()
        expect([0, 1, 2, 3]).toContain(f.state)
        expect([0, 1, 4, 8, 9]).toContain(f.result)
        if (f.result === FW_RESULT.success) expect(f.firmwareVersion).toBe('2.0')
      }
      while (f.state === FW_STATE.downloading) { m.finish(OK); await f.settled() }
    }), { numRuns: 200 })
  })
})

describe('Object 9, software management', () => {
  it('mirrors the installed applications and runs a package from URI to installed, then uninstalls it', async () => {
    const apps = installedApplications([{ type: 'agent', revision: '1', running: true }])
    const m = manualFetch()
    const links: boolean[] = []
    const sw = createSoftwareManagement({ fetchPackage: m.fetch, applications: apps, onChange: (_id, l) => { links.push(l) } })
    expect(sw.slot(0)).toMatchObject({ name: 'agent', version: '1', state: SW_STATE.installed })
    const id = sw.create?.(undefined)
    expect(id).toBe(1)
    const inst = sw.instances().get(1)!
    expect(inst.execute?.(4, '')).toBe('not.allowed')
    expect(inst.write?.(3, URI)).toBe('ok')
    expect(sw.slot(1)).toMatchObject({ state: SW_STATE.downloadStarted, result: SW_RESULT.downloading })
    m.finish({ ok: true, name: 'app', version: '2.1' })
    await sw.settled()
    expect(sw.slot(1)).toMatchObject({ name: 'app', version: '2.1', state: SW_STATE.delivered, result: SW_RESULT.delivered })
    expect(inst.execute?.(4, '')).toBe('ok')
    expect(sw.slot(1)).toMatchObject({ state: SW_STATE.installed, result: SW_RESULT.installed })
    expect(inst.values().get(12)).toBe(true)
    expect(inst.execute?.(11, '')).toBe('ok')
    expect(inst.values().get(12)).toBe(false)
    expect(inst.execute?.(6, '')).toBe('ok')
    expect(sw.slot(1)).toBeUndefined()
    expect(apps.list()).toEqual([{ type: 'agent', revision: '1', running: true }])
    expect(links.filter((l) => l)).toHaveLength(2) // created, then removed: the registration must say so
  })

  it('answers Result 58 when it fails installs, and 53 for a package that fails its check', async () => {
    const apps = installedApplications()
    const m = manualFetch()
    const sw = createSoftwareManagement({ fetchPackage: m.fetch, applications: apps, failsInstalls: true })
    sw.create?.(0)
    sw.instances().get(0)?.write?.(3, URI)
    m.finish({ ok: false, failure: 'integrity', message: 'x' })
    await sw.settled()
    expect(sw.slot(0)).toMatchObject({ state: SW_STATE.initial, result: SW_RESULT.integrity })
    sw.instances().get(0)?.write?.(3, URI)
    m.finish(OK)
    await sw.settled()
    sw.instances().get(0)?.execute?.(4, '')
    expect(sw.slot(0)).toMatchObject({ state: SW_STATE.delivered, result: SW_RESULT.installFailure })
    expect(apps.list()).toEqual([])
  })
})

describe('the object tree', () => {
  const state = initialDeviceState('SIM1', 300, 'U')
  const calls: string[] = []
  const tree = new Lwm2mTree(deviceObjects(state, {
    firmwareVersion: () => '9.9',
    reboot: () => { calls.push('reboot') },
    factoryReset: () => { calls.push('reset') },
    updateTrigger: () => { calls.push('update') },
    registrationChanged: () => { calls.push('changed') }
  }))

  it('reads only readable resources, and says why it cannot', () => {
    const dev = tree.read({ objectId: 3, instanceId: 0 })
    expect(dev.outcome).toBe('ok')
    const paths = dev.outcome === 'ok' ? dev.values.map((v) => v.path.resourceId) : []
    expect(paths).toContain(3)
    expect(paths).not.toContain(4)
    expect(tree.read({ objectId: 3, instanceId: 0, resourceId: 4 }).outcome).toBe('not.allowed')
    expect(tree.read({ objectId: 3, instanceId: 1 }).outcome).toBe('not.found')
    expect(tree.read({ objectId: 42 }).outcome).toBe('not.found')
    expect(tree.read({ objectId: 3, instanceId: 0, resourceId: 6, resourceInstanceId: 1 })).toMatchObject({ outcome: 'ok', values: [{ value: 5 }] })
  })

  it('writes writable resources only, and executes executables only', () => {
    expect(tree.write({ objectId: 1, instanceId: 0 }, [{ path: { objectId: 1, instanceId: 0, resourceId: 1 }, value: 60 }])).toBe('ok')
    expect(state.lifetime).toBe(60)
    expect(tree.write({ objectId: 3, instanceId: 0 }, [{ path: { objectId: 3, instanceId: 0, resourceId: 0 }, value: 'x' }])).toBe('not.allowed')
    expect(tree.write({ objectId: 1, instanceId: 0 }, [{ path: { objectId: 1, instanceId: 0, resourceId: 1 }, value: 0 }])).toBe('bad.request')
    expect(tree.execute({ objectId: 3, instanceId: 0, resourceId: 4 }, '')).toBe('ok')
    expect(tree.execute({ objectId: 3, instanceId: 0, resourceId: 5 }, '')).toBe('ok')
    expect(tree.execute({ objectId: 3, instanceId: 0, resourceId: 3 }, '')).toBe('not.allowed')
    expect(tree.execute({ objectId: 1, instanceId: 0, resourceId: 8 }, '')).toBe('ok')
    expect(calls).toEqual(['changed', 'reboot', 'reset', 'update'])
    expect(tree.registrationLinks()).toEqual(['</1>;ver=1.1', '</1/0>', '</3>;ver=1.1', '</3/0>', '</4/0>', '</6/0>'])
  })

  it('takes the device model\'s points: RSSI, link quality, the position and its time, the battery', () => {
    const s = initialDeviceState('SIM2', 300, 'U')
    const changed = applyPoints(s, [
      { dataId: '_RSSI', ts: 1, value: -88.6 }, { dataId: '_SIGNAL_BARS', ts: 1, value: 2 },
      { dataId: '_LATITUDE', ts: 5000, value: 45.3 }, { dataId: 'machine.temperature', ts: 1, value: 40 }
    ])
    expect(changed).toEqual([{ objectId: 4, instanceId: 0, resourceId: 2 }, { objectId: 4, instanceId: 0, resourceId: 3 }, { objectId: 6, instanceId: 0 }])
    expect([s.rssi, s.linkQuality, s.latitude, s.locationTime.getTime()]).toEqual([-88.6, 40, 45.3, 5000])
    expect(applyPoints(s, [{ dataId: '_RSSI', ts: 2, value: -88.9 }])).toEqual([]) // the same dBm once rounded
    for (let i = 0; i < 30; i++) applyPoints(s, [])
    expect(Math.round(s.battery)).toBe(98)
  })
})

describe('registration and packages', () => {
  const base = { endpointName: 'SIM1', lifetime: 300, links: ['</3/0>'] }
  it('queries 1.1 with Q for queue mode, 1.0 with b=UQ, and puts the formats on the root link in 1.1', () => {
    expect(registerQuery({ ...base, version: '1.1', queue: false })).toEqual(['ep=SIM1', 'lt=300', 'lwm2m=1.1', 'b=U'])
    expect(registerQuery({ ...base, version: '1.1', queue: true })).toEqual(['ep=SIM1', 'lt=300', 'lwm2m=1.1', 'b=U', 'Q'])
    expect(registerQuery({ ...base, version: '1.0', queue: true })).toEqual(['ep=SIM1', 'lt=300', 'lwm2m=1.0', 'b=UQ'])
    expect(registrationPayload('1.1', ['</3/0>'])).toBe('</>;rt="oma.lwm2m";ct="60 110 112 11542",</3/0>')
    expect(registrationPayload('1.0', ['</3/0>'])).toBe('</3/0>')
  })

  it('names a package from the file name of its link, else from its URI and digest', () => {
    expect(packageIdentity('gateway-fw-2.4.1.bin', URI, 'ab')).toEqual({ name: 'gateway-fw', version: '2.4.1' })
    expect(packageIdentity('app_v5.0-rc1.tar.gz', URI, 'ab')).toEqual({ name: 'app', version: '5.0-rc1' })
    expect(packageIdentity(undefined, 'http://h/device/packages/tok', '0123456789abcdef')).toEqual({ name: 'tok', version: '0123456789ab' })
  })
})

describe('fleet simulate --protocol lwm2m', () => {
  const d: SimulateDefaults = { url: 'http://localhost:8080', mqttUrl: 'mqtt://localhost:1883', clientId: 'fleet-cli', clientSecret: 's', email: undefined, password: undefined }
  it('reads the LwM2M flags with their defaults', () => {
    expect(parseSimulateArgs(['--devices', '2', '--protocol', 'lwm2m'], d)).toMatchObject({ protocol: 'lwm2m', lwm2mUrl: 'coap://localhost:5683', lwm2m: { psk: false, queue: false, lifetime: 300, version: '1.1' } })
    expect(parseSimulateArgs(['--devices', '2', '--protocol', 'lwm2m', '--lwm2m-psk', '--lwm2m-queue', '--lwm2m-lifetime', '60', '--lwm2m-version', '1.0'], d))
      .toMatchObject({ lwm2mUrl: 'coaps://localhost:5684', lwm2m: { psk: true, queue: true, lifetime: 60, version: '1.0' } })
  })

  it('refuses a version it does not speak and a URL that does not match the security', () => {
    expect(() => parseSimulateArgs(['--devices', '1', '--protocol', 'lwm2m', '--lwm2m-version', '1.2'], d)).toThrow(UsageError)
    expect(() => parseSimulateArgs(['--devices', '1', '--protocol', 'lwm2m', '--lwm2m-psk', '--lwm2m-url', 'coap://h:5683'], d)).toThrow(/coaps/)
    expect(() => parseSimulateArgs(['--devices', '1', '--protocol', 'lwm2m', '--lwm2m-lifetime', '0'], d)).toThrow(/at least 1/)
  })
})
