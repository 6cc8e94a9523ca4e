// DELETE /api/v1/applications/{uid} while the application is in use (docs/packages.md#release-and-publish): refused
// with application.in.use while a system has it, or while an install operation not finished names it; the
// application and its bytes stay. Both through the API: the application released from a package, installed by a real
// install operation on a REST device, which polls its task and acks it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { uniq } from '../../helpers/factories.js'
import { eventually } from '../../helpers/eventually.js'
import { started, waitFinished, type Json } from '../../helpers/operations.js'
import { createSystem, expectError, putSystem, validImei } from '../../helpers/systems.js'
import { applicationsOf, postSoftware, releasedApplication } from './install-fixtures.js'
import { applicationsOfType, greenhousePackage, release } from './release-helpers.js'

let stack: Stack
let seq = Math.floor(Math.random() * 100_000) * 10

beforeAll(async () => { stack = await startStack() }, 120_000)
afterAll(async () => { await stack?.close() })

const remove = async (uid: string) => await stack.call(stack.adminToken, { method: 'DELETE', url: `/api/v1/applications/${uid}` })
const get = async (uid: string) => await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/applications/${uid}` })

/** An application released through the API from a one-model package (MQTT_SW, one binary). */
async function released (): Promise<Json> {
  const type = uniq('in-use')
  const { task } = await release(stack, await greenhousePackage(type, '1.0'))
  expect(task.state).toBe('SUCCESS')
  return (await applicationsOfType(stack, type))[0] as Json
}

interface RestDevice { uid: string, serial: string, password: string, restApp: string }

/** A REST device: a system whose one application speaks REST, with its device password. */
async function restDevice (): Promise<RestDevice> {
  const restApp = await releasedApplication(stack, { manager: null, protocols: ['REST'], binaries: 0 })
  const serial = uniq('SN').toUpperCase()
  const password = uniq('pw')
  const s = await createSystem(stack, {
    name: serial,
    gateway: { serialNumber: serial, imei: validImei(800_000 + ++seq) },
    communication: { rest: { password } },
    applications: [{ uid: restApp.uid }]
  })
  return { uid: s.uid as string, serial, password, restApp: restApp.uid }
}

/** A REST device's call (Basic auth with its serial number and password). */
async function device (d: RestDevice, method: 'GET' | 'POST', url: string, payload?: Json[]) {
  const authorization = 'Basic ' + Buffer.from(`${d.serial}:${d.password}`).toString('base64')
  return await stack.api.inject({ method, url, headers: { authorization }, ...(payload === undefined ? {} : { payload }) })
}

/** The refusal, with the application and its stored bytes still there. */
async function refusedWhile (app: Json, why: string): Promise<void> {
  const res = expectError(await remove(app.uid as string), 'application.in.use')
  expect(res.errorParameters).toEqual([app.uid, why])
  expect((await get(app.uid as string)).statusCode).toBe(200)
  expect(await stack.ctx.artifacts.stat((app.binaries as Json[])[0]?.sha256 as string)).toBeDefined()
}

describe('delete an application in use', { timeout: 60_000 }, () => {
  it('refused while a system has it; deleted, bytes too, once the system is gone', async () => {
    const app = await released()
    const s = await createSystem(stack, { name: uniq('has-it'), applications: [{ uid: app.uid }] })
    await refusedWhile(app, '1 system(s) have it')
    expect((await stack.call(stack.adminToken, { method: 'DELETE', url: `/api/v1/systems/${s.uid as string}` })).statusCode).toBe(200)
    expect((await remove(app.uid as string)).statusCode).toBe(200)
    expect(await stack.ctx.artifacts.stat((app.binaries as Json[])[0]?.sha256 as string)).toBeUndefined()
  })

  it('refused while an install operation names it, then while the system it installed on has it', async () => {
    const app = await released()
    const d = await restDevice()
    const op = await started(postSoftware(stack, 'install', { application: app.uid, systems: { uids: [d.uid] } }))
    const task = await eventually(async () => {
      const polled = (await device(d, 'GET', '/device/tasks')).json() as Json[]
      return polled.find((t) => t.swinstall !== undefined)
    }, 15_000, 'the swinstall task polled')
    await refusedWhile(app, '1 operation(s) in progress name it')
    expect((await device(d, 'POST', '/device/acks', [{ uid: task.uid, status: 'OK' }])).statusCode).toBeLessThan(300)
    await waitFinished(stack, op, 15_000)
    expect(await applicationsOf(stack, d.uid)).toEqual([app.uid, d.restApp].sort())
    await refusedWhile(app, '1 system(s) have it')
    expect((await putSystem(stack, d.uid, { applications: [{ uid: d.restApp }] })).statusCode).toBe(200)
    expect((await remove(app.uid as string)).statusCode).toBe(200)
    expect((await get(app.uid as string)).json()).toMatchObject({ error: 'application.unknown' })
  })
})
