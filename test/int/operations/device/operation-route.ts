// One device operation's route for the row tests (docs/api.md#using-the-api rows "retrieve data", "apply settings"):
// posting, a refusal that must create no operation and no device task, and cancelling what waits for a device.
import type { LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'
import { allTasks, countOperations, started, waitFinished, type Json, type TaskJson } from '../../../helpers/operations.js'
import { deviceTasksOf } from './reboot-fixtures.js'
import { expectError } from '../../../helpers/systems.js'
import type { Stack } from '../../../helpers/stack.js'

export interface OperationRoute {
  /** POST the body to the route, as the administrator unless `token`. */
  post (body: Json, token?: string): Promise<LightMyRequestResponse>
  /** The request is refused with `code` (400) and creates no operation and no device task; answers the error body. */
  refused (body: Json, code: string): Promise<Json>
  /** Cancels an operation whose device tasks were never delivered (they are withdrawn), and waits for its end. */
  cancel (uid: string): Promise<void>
  /** A one-system operation whose task fails with `code` while running, having written no device task; answers the task. */
  failsWith (body: Json, code: string): Promise<TaskJson>
}

/** `path` under /api/v1/operations/systems/. */
export function operationRoute (stackOf: () => Stack, path: string): OperationRoute {
  const deviceTaskCount = async (): Promise<number> => (await stackOf().db.query<{ n: number }>('SELECT count(*)::int AS n FROM device_tasks')).rows[0]?.n ?? 0
  const route: OperationRoute = {
    async post (body, token) {
      const stack = stackOf()
      return await stack.call(token ?? stack.adminToken, { method: 'POST', url: `/api/v1/operations/systems/${path}`, payload: body })
    },
    async refused (body, code) {
      const before = [await countOperations(stackOf()), await deviceTaskCount()]
      const res = expectError(await route.post(body), code)
      expect([await countOperations(stackOf()), await deviceTaskCount()]).toEqual(before)
      return res
    },
    async cancel (uid) {
      const stack = stackOf()
      expect((await stack.call(stack.adminToken, { method: 'POST', url: `/api/v1/operations/${uid}/cancel` })).statusCode).toBe(200)
      await waitFinished(stack, uid)
    },
    async failsWith (body, code) {
      const op = await waitFinished(stackOf(), await started(route.post(body)))
      expect(op.counters).toContainEqual({ state: 'FAILURE', count: 1 })
      const tasks = await allTasks(stackOf(), op.uid)
      expect(tasks).toMatchObject([{ state: 'FAILURE', error: { code } }])
      expect(await deviceTasksOf(stackOf(), op.uid)).toEqual([])
      return tasks[0] as TaskJson
    }
  }
  return route
}
