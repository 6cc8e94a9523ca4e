// Installs, uninstalls, starts and stops as the API takes them (docs/packages.md#installs): the application is checked
// at once (400 and nothing created), AirVantage clients' null and empty fields mean the defaults, another company's
// application or systems are unknown, and a system its update path cannot reach (Sparkplug, MSCI, an LwM2M manager,
// the Mihini agent asked for anything but an install) fails its task at once without a device task.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser, uniq, type TestUser } from '../../helpers/factories.js'
import { allTasks, getOperation, started, waitFinished, waitOperation, type Json } from '../../helpers/operations.js'
import { createSystem, OTHER_COMPANY, validImei } from '../../helpers/systems.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { actionSystem, deviceTasksOf } from '../operations/device/reboot-fixtures.js'
import { postSoftware, refusedSoftware, releasedApplication, type Released, type SoftwareAction } from './install-fixtures.js'

let stack: Stack
let mqttSw: Released
let other: TestUser
let imei = 700_000 + Math.floor(Math.random() * 100_000) * 10

beforeAll(async () => {
  stack = await startStack()
  mqttSw = await releasedApplication(stack, { manager: 'MQTT_SW' })
  other = await createUser(stack, { company: OTHER_COMPANY, rights: ['entities.systems.create'] })
}, 120_000)
afterAll(async () => { await stack?.close() })

/** A system whose applications speak these protocols (an MQTT password and an MSCI host given). */
async function systemSpeaking (protocols: string[]): Promise<string> {
  const app = await releasedApplication(stack, { manager: null, protocols, binaries: 0 })
  const serial = uniq('SN').toUpperCase()
  const s = await createSystem(stack, {
    name: serial,
    gateway: { serialNumber: serial, imei: validImei(++imei) },
    communication: { mqtt: { password: uniq('mqtt-pw') }, msci: { host: '192.0.2.7', user: 'admin', password: 'msci-pw' } },
    applications: [{ uid: app.uid }]
  })
  return s.uid
}

describe('the request', { timeout: 60_000 }, () => {
  it('an unknown application, another company\'s, or none: application.unknown / application.missing, nothing created', async () => {
    const s = await actionSystem(stack, [])
    const theirs = await releasedApplication(stack, { manager: 'MQTT_SW', company: OTHER_COMPANY })
    for (const action of ['install', 'uninstall', 'start', 'stop'] as const) {
      await refusedSoftware(stack, action, { application: 'f'.repeat(32), systems: { uids: [s.uid] } }, 'application.unknown')
      await refusedSoftware(stack, action, { application: theirs.uid, systems: { uids: [s.uid] } }, 'application.unknown')
      await refusedSoftware(stack, action, { application: null, systems: { uids: [s.uid] } }, 'application.missing')
      await refusedSoftware(stack, action, { application: '', systems: { uids: [s.uid] } }, 'application.missing')
    }
  })

  it('another company\'s systems are unknown', async () => {
    const theirs = await createSystem(stack, { name: uniq('theirs') }, { token: other.token })
    await refusedSoftware(stack, 'install', { application: mqttSw.uid, systems: { uids: [theirs.uid] } }, 'system.unknown')
  })

  it('no application manager, no binaries, deprecated: the operation.install.* codes', async () => {
    const s = await actionSystem(stack, [])
    const systems = { uids: [s.uid] }
    const unmanaged = await releasedApplication(stack, { manager: null })
    for (const action of ['install', 'uninstall', 'start', 'stop'] as const) {
      await refusedSoftware(stack, action, { application: unmanaged.uid, systems }, 'operation.install.missing.application.manager')
    }
    const empty = await releasedApplication(stack, { manager: 'MQTT_SW', binaries: 0 })
    await refusedSoftware(stack, 'install', { application: empty.uid, systems }, 'operation.install.missing.binaries')
    const old = await releasedApplication(stack, { manager: 'MQTT_SW', state: 'DEPRECATED' })
    await refusedSoftware(stack, 'install', { application: old.uid, systems }, 'operation.install.application.deprecated')
    // Stopping or removing what is deprecated is what a fleet does with it.
    expect((await postSoftware(stack, 'uninstall', { application: old.uid, systems })).statusCode).toBe(200)
  })

  it('AirVantage clients\' null and empty fields are the defaults; the operation names the application', async () => {
    const s = await actionSystem(stack, [])
    const body = { application: mqttSw.uid, systems: { uids: [s.uid] }, requestConnection: null, scheduledTime: null, timeout: null, notify: false, callback: null, reboot: false, protocol: '', parameters: null }
    const uid = await started(postSoftware(stack, 'start', body))
    const op = await getOperation(stack, uid)
    expect(op).toMatchObject({ operationType: 'SYSTEM_START_APPLICATION', entity: 'SYSTEM', parameters: { application: mqttSw.uid, applicationType: mqttSw.type, manager: 'MQTT_SW', protocol: null, requestConnection: false, options: null } })
    // 7 days after the start: the links of an install live as long.
    expect(op.timeoutDate - (op.startDate ?? 0)).toBe(7 * 86_400_000)
  })

  it('the four operation types', async () => {
    const s = await actionSystem(stack, [])
    const types: Record<SoftwareAction, string> = { install: 'SYSTEM_INSTALL_APPLICATION', uninstall: 'SYSTEM_UNINSTALL_APPLICATION', start: 'SYSTEM_START_APPLICATION', stop: 'SYSTEM_STOP_APPLICATION' }
    for (const [action, type] of Object.entries(types) as Array<[SoftwareAction, string]>) {
      const uid = await started(postSoftware(stack, action, { application: mqttSw.uid, systems: { uids: [s.uid] }, requestConnection: false }))
      expect((await getOperation(stack, uid)).operationType).toBe(type)
    }
  })
})

describe('systems the update path cannot reach', { timeout: 60_000 }, () => {
  /** Runs the operation to its end; every task FAILURE with the code, and no device task written. */
  async function failsAtOnce (action: SoftwareAction, application: string, systemUid: string, code = 'operation.install.unsupported.protocol'): Promise<void> {
    const uid = await started(postSoftware(stack, action, { application, systems: { uids: [systemUid] } }))
    await waitFinished(stack, uid, 20_000)
    expect(await allTasks(stack, uid)).toMatchObject([{ state: 'FAILURE', error: { code } }])
    expect(await deviceTasksOf(stack, uid)).toEqual([])
  }

  it('Sparkplug and MSCI systems: operation.install.unsupported.protocol at once', async () => {
    await failsAtOnce('install', mqttSw.uid, await systemSpeaking(['SPARKPLUG']))
    await failsAtOnce('install', mqttSw.uid, await systemSpeaking(['MSCI']))
    await failsAtOnce('stop', mqttSw.uid, await systemSpeaking(['SPARKPLUG']))
  })

  it('an LwM2M manager, and the Mihini agent asked to uninstall, start or stop', async () => {
    const lwm2m = await releasedApplication(stack, { manager: 'LWM2M_SW' })
    await failsAtOnce('install', lwm2m.uid, await systemSpeaking(['MQTT']))
    const mihini = await releasedApplication(stack, { manager: 'MIHINI_APPCON', protocols: ['M3DA'] })
    const m3da = await systemSpeaking(['M3DA'])
    for (const action of ['uninstall', 'start', 'stop'] as const) await failsAtOnce(action, mihini.uid, m3da)
  })

  it('a requested protocol the system does not speak, and a system without its login', async () => {
    const mqtt = await systemSpeaking(['MQTT'])
    const uid = await started(postSoftware(stack, 'start', { application: mqttSw.uid, systems: { uids: [mqtt] }, protocol: 'rest' }))
    await waitFinished(stack, uid, 20_000)
    expect(await allTasks(stack, uid)).toMatchObject([{ state: 'FAILURE', error: { code: 'operation.protocol.not.found.on.system.for.encoding' } }])
    const bare = await actionSystem(stack, [(await releasedApplication(stack, { manager: null, binaries: 0 })).uid], { passwords: false })
    await failsAtOnce('start', mqttSw.uid, bare.uid, 'operation.no.communication.id.on.system.for.protocol')
  })
})

describe('hawkBit', { timeout: 60_000 }, () => {
  it('an install of a HAWKBIT application is a DDI device task carrying each binary\'s link, size and digests', async () => {
    const firmware = await releasedApplication(stack, { manager: 'HAWKBIT', protocols: ['REST'], binaries: 2 })
    const s = await actionSystem(stack, [])
    const uid = await started(postSoftware(stack, 'install', { application: firmware.uid, systems: { uids: [s.uid] } }))
    await waitOperation(stack, uid, (op) => op.counters.some((c) => c.state === 'IN_PROGRESS' && c.count === 1), 15_000, 'its task written')
    const [task] = await deviceTasksOf(stack, uid)
    expect(task?.protocol).toBe('DDI')
    const software = task?.body.software as Json
    expect(software).toMatchObject({ action: 'install', manager: 'HAWKBIT', application: { uid: firmware.uid, type: firmware.type, revision: firmware.revision } })
    expect(software.binaries).toHaveLength(2)
    expect(software.binaries[0]).toMatchObject({ size: firmware.bytes.length, sha256: firmware.sha256, md5: firmware.md5 })
    expect(new Set((software.binaries as Json[]).map((b) => b.url)).size).toBe(2)
  })
})
