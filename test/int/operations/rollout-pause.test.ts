// Safe rollouts through HTTP (docs/operations.md#safe-rollouts): POST /api/v1/operations/{uid}/pause and /resume
// answer the operation JSON, need the right cancel needs, and leave a FINISHED operation as it is, as cancel does;
// the rollout fields of a reboot are kept checked in its parameters and shown with its progress, and an invalid one
// answers operation.rollout.invalid naming the field, creating nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser, uniq } from '../../helpers/factories.js'
import { expectError } from '../../helpers/systems.js'
import { countOperations, getOperation } from '../../helpers/operations.js'
import { cancelOperation, mqttDevices, postReboot } from '../../helpers/rollout-devices.js'

const DAY = 86_400_000

let stack: Stack
let label: string
beforeAll(async () => {
  stack = await startStack()
  label = uniq('paused')
  await mqttDevices(stack, 2, label)
})
afterAll(async () => { await stack.close() })

const act = async (uid: string, action: 'pause' | 'resume', token = stack.adminToken) =>
  await stack.call(token, { method: 'POST', url: `/api/v1/operations/${uid}/${action}` })

/** A reboot of the label's systems scheduled tomorrow: it stays SCHEDULED, its tasks PENDING. */
async function scheduledReboot (extra: Record<string, unknown> = {}): Promise<string> {
  const res = await postReboot(stack, { systems: { label }, scheduledTime: Date.now() + DAY, ...extra })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().operation as string
}

describe('pause and resume', () => {
  it('pause marks the operation paused and answers it; pausing again or resuming what is not paused changes nothing', async () => {
    const uid = await scheduledReboot()
    expect((await getOperation(stack, uid)).rollout).toBeNull()
    let res = await act(uid, 'pause')
    expect(res.statusCode).toBe(200)
    const paused = { maxPerMinute: null, waves: null, waveSuccessPercent: null, abort: null, maintenanceWindow: null, wave: null, sent: 0, nextAt: null, paused: true }
    expect(res.json()).toMatchObject({ uid, state: 'SCHEDULED', rollout: paused })
    res = await act(uid, 'pause')
    expect(res.json().rollout).toEqual(paused)
    res = await act(uid, 'resume')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ uid, rollout: null })
    expect((await act(uid, 'resume')).json()).toEqual(await getOperation(stack, uid))
    expect((await cancelOperation(stack, uid)).statusCode).toBe(200)
  })

  it('needs the right cancel needs (403 missing.rights, nothing changed); a FINISHED operation answers as it is; an unknown one operation.unknown', async () => {
    const viewer = await createUser(stack, { rights: ['entities.systems.view'] })
    const uid = await scheduledReboot()
    const before = await getOperation(stack, uid)
    for (const action of ['pause', 'resume'] as const) {
      const res = await act(uid, action, viewer.token)
      expect(res.statusCode).toBe(403)
      expect(res.json()).toEqual({ error: 'missing.rights', errorParameters: ['device.management.action'] })
    }
    expect(await getOperation(stack, uid)).toEqual(before)
    const cancelled = (await cancelOperation(stack, uid)).json()
    expect(cancelled.state).toBe('FINISHED')
    const res = await act(uid, 'pause')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual(cancelled)
    expectError(await act('0123456789abcdef0123456789abcdef', 'pause'), 'operation.unknown')
  })
})

describe('the rollout fields of a reboot', () => {
  it('are kept checked, with their defaults, and shown with the progress', async () => {
    const uid = await scheduledReboot({
      rollout: { maxPerMinute: 100, waves: [1, 50], abort: { failurePercent: 10, minFinished: 20 } },
      maintenanceWindow: { start: '23:30', end: '04:00', timeZone: 'america/new_york' }
    })
    const op = await getOperation(stack, uid)
    expect(op.parameters).toMatchObject({
      rollout: { maxPerMinute: 100, waves: [1, 50], waveSuccessPercent: 95, abort: { failurePercent: 10, minFinished: 20 } },
      maintenanceWindow: { start: '23:30', end: '04:00', timeZone: 'America/New_York' }
    })
    expect(op.rollout).toEqual({
      maxPerMinute: 100,
      waves: [1, 50, 100],
      waveSuccessPercent: 95,
      abort: { failurePercent: 10, minFinished: 20 },
      maintenanceWindow: { start: '23:30', end: '04:00', timeZone: 'America/New_York' },
      wave: 1,
      sent: 0,
      nextAt: null,
      paused: false
    })
    expect((await cancelOperation(stack, uid)).statusCode).toBe(200)
  })

  it('refuses an invalid field with operation.rollout.invalid naming it, creating nothing', async () => {
    const before = await countOperations(stack)
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ rollout: { waves: [1, 10, 5] } }, 'rollout.waves[2]'],
      [{ rollout: { waves: [10], waveSuccessPercent: 0 } }, 'rollout.waveSuccessPercent'],
      [{ rollout: { abort: { failurePercent: 10, minFinished: 0 } } }, 'rollout.abort.minFinished'],
      [{ rollout: { abort: { failurePercent: 10, minFinished: 5 } }, abort: { failurePercent: 10, minTasks: 5 } }, 'abort'],
      [{ maintenanceWindow: { start: '22:00', end: '25:00' } }, 'maintenanceWindow.end'],
      [{ maintenanceWindow: { start: '22:00', end: '05:00', timeZone: 'Nowhere/Land' } }, 'maintenanceWindow.timeZone']
    ]
    for (const [fields, field] of cases) {
      const body = expectError(await postReboot(stack, { systems: { label }, ...fields }), 'operation.rollout.invalid')
      expect(body.errorParameters[0]).toBe(field)
    }
    expect(await countOperations(stack)).toBe(before)
  })
})
