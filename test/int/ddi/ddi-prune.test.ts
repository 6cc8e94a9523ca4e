// DDI actions do not accumulate (docs/protocols/ddi.md#action-ids): the module's hourly job removes the actions whose
// task ended more than a week ago, keeps those ended since and every open one however old, and an action goes with
// its device task whenever that is removed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createDevice, transportOf } from '../../helpers/devices.js'
import { ENDED_ACTION_KEEP_MS, PRUNE_EVERY_MS } from '../../../ingest/ddi/action-prune.js'
import { controllerOf, ddi, feedback, insertInstall, linkOf, type Controller } from './ddi-fixtures.js'

let stack: Stack
beforeAll(async () => { stack = await startStack({ listen: true }) })
afterAll(async () => { await stack.close() })

const DAY = 86_400_000

/** An install offered to the controller (its action id given), and the path of its feedback. */
async function offered (c: Controller, systemUid: string): Promise<{ taskUid: string, feedbackPath: string }> {
  const inst = await insertInstall(stack, systemUid)
  const poll = await ddi(stack, c, 'GET')
  const id = (await stack.db.query<{ id: number }>('SELECT id FROM ddi_actions WHERE task_uid = $1', [inst.taskUid])).rows[0]?.id
  expect(linkOf(poll, 'deploymentBase')).toBeDefined()
  return { taskUid: inst.taskUid, feedbackPath: `/deploymentBase/${id}/feedback` }
}

const actionOf = async (taskUid: string): Promise<boolean> =>
  (await stack.db.query('SELECT 1 FROM ddi_actions WHERE task_uid = $1', [taskUid])).rows.length === 1

/** Moves the task's end this far into the past. */
async function endedAgo (taskUid: string, ms: number): Promise<void> {
  await stack.db.query('UPDATE device_tasks SET acked_at = $2 WHERE uid = $1', [taskUid, Date.now() - ms])
}

const prune = async (): Promise<void> => {
  const job = transportOf(stack, 'ddi').jobs?.['ddi.prune']
  expect(job?.everyMs).toBe(PRUNE_EVERY_MS)
  await job?.run()
}

describe('ended actions', () => {
  it('go a week after their task ended; those ended since and the open ones stay', async () => {
    const d = await createDevice(stack)
    const c = controllerOf(stack, d)
    const old = await offered(c, d.uid)
    expect((await ddi(stack, c, 'POST', old.feedbackPath, { body: feedback('closed', 'success') })).status).toBe(200)
    const recent = await offered(c, d.uid)
    expect((await ddi(stack, c, 'POST', recent.feedbackPath, { body: feedback('canceled') })).status).toBe(200)
    const open = await offered(c, d.uid)
    expect((await ddi(stack, c, 'POST', open.feedbackPath, { body: feedback('proceeding') })).status).toBe(200)
    await endedAgo(old.taskUid, ENDED_ACTION_KEEP_MS + DAY)
    await endedAgo(recent.taskUid, ENDED_ACTION_KEEP_MS - DAY)
    // An open task's action stays whatever its age: its controller may still be installing.
    await stack.db.query('UPDATE device_tasks SET created_at = $2, sent_at = $2 WHERE uid = $1', [open.taskUid, Date.now() - 30 * DAY])
    await stack.db.query('UPDATE ddi_actions SET created_at = $2, feedback_at = $2 WHERE task_uid = $1', [open.taskUid, Date.now() - 30 * DAY])

    await prune()
    expect(await actionOf(old.taskUid)).toBe(false)
    expect(await actionOf(recent.taskUid)).toBe(true)
    expect(await actionOf(open.taskUid)).toBe(true)
    // The removed action names nothing any more; the one ended since still takes a late feedback.
    expect((await ddi(stack, c, 'POST', old.feedbackPath, { body: feedback('closed', 'success') })).status).toBe(404)
    expect((await ddi(stack, c, 'POST', recent.feedbackPath, { body: feedback('closed', 'success') })).status).toBe(200)
    expect(linkOf(await ddi(stack, c, 'GET'), 'deploymentBase')?.id).toBe(open.feedbackPath.split('/')[2])
    // The device task itself is kept.
    expect((await stack.db.query('SELECT state FROM device_tasks WHERE uid = $1', [old.taskUid])).rows).toEqual([{ state: 'OK' }])
  })

  it('an action goes with its device task', async () => {
    const d = await createDevice(stack)
    const a = await offered(controllerOf(stack, d), d.uid)
    expect(await actionOf(a.taskUid)).toBe(true)
    await stack.db.query('DELETE FROM device_tasks WHERE uid = $1', [a.taskUid])
    expect(await actionOf(a.taskUid)).toBe(false)
  })
})
