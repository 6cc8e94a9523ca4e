// An operations engine of a test's own over the stack's store (core/operations/engine.ts createEngine): its own
// queue namespace and a clock the test moves, shared by the engine and its queue, so that waits of a minute (a
// rollout's window) pass at once. Its operations are read back through the stack's HTTP API like any other.
import { pino } from 'pino'
import type { Clock, Db } from '../../core/ports/store.js'
import type { Operation, OperationType } from '../../core/domain/operation.js'
import type { OperationHandler } from '../../core/operations/handler.js'
import type { DeviceProtocol } from '../../core/domain/device-message.js'
import type { DeviceAnswer } from '../../core/domain/device-task.js'
import type { TaskDispatch } from '../../core/ports/devices.js'
import { createEngine, type Engine } from '../../core/operations/engine.js'
import { issueDeviceTask } from '../../core/operations/device/issue.js'
import { newUid } from '../../core/security/secrets.js'
import { createLocalQueue } from '../../storage/queue/local-queue.js'
import { createRepositories } from '../../storage/repositories/index.js'
import { uniq } from './factories.js'
import type { Stack } from './stack.js'
import { eventually } from './eventually.js'

const DAY = 86_400_000

/** A clock that stands still unless the test moves it: a slow machine ends no wait on its own. */
export interface ManualClock extends Clock { move (ms: number): void }

export function manualClock (start = Date.now()): ManualClock {
  let now = start
  return { now: () => now, move: (ms) => { now += ms } }
}

export interface OwnEngine {
  engine: Engine
  clock: ManualClock
  /** Resolves once no job of this engine is due or running: what is left waits for a later time. */
  idle: () => Promise<void>
  /** When the next job waits for (epoch ms of the clock), or undefined when none is queued. */
  nextRunAt: () => Promise<number | undefined>
  /** Writes an operation of `type` on these systems, run by this engine; answers its uid. */
  launch: (systems: string[], parameters: Record<string, unknown>, opts?: { timeoutDate?: number }) => Promise<string>
  close: () => Promise<void>
}

export interface OwnEngineOptions {
  clock?: ManualClock
  type?: OperationType
  chunkSize?: number
  sliceMs?: number
  dispatch?: TaskDispatch
  /** The store the engine and its queue use (default: the stack's); idle() and nextRunAt() read the stack's. */
  db?: Db
}

/**
 * A test-only device operation: each task writes a `command` device task (the reboot action of the generic
 * firmware) with the real issueDeviceTask and waits for its device; the engine's default ends it on the answer.
 */
export function commandHandler (protocol: DeviceProtocol = 'MQTT'): OperationHandler {
  return {
    async run (ctx) {
      return await issueDeviceTask(ctx, protocol, { command: { id: 'system.reboot', params: {} } }, { requestConnection: false })
    }
  }
}

export async function ownEngine (stack: Stack, handler: OperationHandler, opts: OwnEngineOptions = {}): Promise<OwnEngine> {
  const clock = opts.clock ?? manualClock()
  const type = opts.type ?? 'SYSTEM_REBOOT'
  const queueName = uniq('own-engine')
  const db = opts.db ?? stack.db
  const queue = createLocalQueue<any>(db, { queue: queueName, pollMs: 20, clock, onError: () => {} })
  const engine = createEngine({
    repos: createRepositories(db),
    inTransaction: async (fn) => await db.transaction(async (tx) => await fn(createRepositories(tx))),
    queue,
    clock,
    log: pino({ level: 'silent' }),
    callbacks: { send: async () => ({ outcome: 'delivered', status: 200 }) },
    mailer: { send: async () => {}, close: async () => {} },
    handlers: { [type]: handler },
    chunkSize: opts.chunkSize ?? 2,
    sliceMs: opts.sliceMs ?? 0,
    ...(opts.dispatch === undefined ? {} : { dispatch: opts.dispatch })
  })
  await engine.work(2)

  const busy = async (): Promise<number> => (await stack.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM jobs WHERE queue = $1 AND (run_at <= $2 OR locked_until IS NOT NULL)', [queueName, clock.now()])).rows[0]?.n ?? 0
  return {
    engine,
    clock,
    async idle () {
      await eventually(async () => await busy() === 0, 20_000, 'the engine to go idle')
    },
    async nextRunAt () {
      const { rows } = await stack.db.query<{ t: string | number | null }>('SELECT min(run_at) AS t FROM jobs WHERE queue = $1', [queueName])
      const t = rows[0]?.t ?? null
      return t === null ? undefined : Number(t)
    },
    async launch (systems, parameters, o = {}) {
      const now = clock.now()
      const op: Operation = {
        uid: newUid(),
        companyUid: stack.companyUid,
        type,
        state: 'IN_PROGRESS',
        createdAt: now,
        startDate: now,
        scheduledTime: null,
        timeoutDate: o.timeoutDate ?? now + DAY,
        endDate: null,
        cancelDate: null,
        total: 0,
        target: null,
        userUid: stack.adminUid,
        userEmail: null,
        notify: false,
        callback: null,
        parameters,
        dependsOn: null,
        resolved: true
      }
      return await engine.create(op, systems.map((systemUid) => ({ systemUid, systemName: null })))
    },
    async close () { await queue.close() }
  }
}

/** A device's acks as ingest records them (repos.deviceTasks.answer), then handed to the engine. */
export async function answer (stack: Stack, engine: Engine, systemUid: string, taskUid: string, status: 'OK' | 'ERROR', now: number, message: string | null = null): Promise<DeviceAnswer[]> {
  const answers = await createRepositories(stack.db).deviceTasks.answer(systemUid, [{ taskUid, status, message }], now)
  await engine.deviceAnswered(answers)
  return answers
}
